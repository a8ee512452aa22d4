ALTER TABLE "company_integrations" ADD COLUMN "webhook_verified_at" bigint;
--> statement-breakpoint
-- Webhook URLs set before verification existed keep receiving: only a new URL must answer the challenge.
UPDATE "company_integrations" SET "webhook_verified_at" = "updated_at" WHERE "webhook_url" IS NOT NULL;