ALTER TABLE "chauffeur_positions" ADD COLUMN "eta_minutes" integer;--> statement-breakpoint
ALTER TABLE "chauffeur_positions" ADD COLUMN "eta_at" text;