ALTER TABLE "company_integrations" ADD COLUMN "max_trip_km" integer DEFAULT 800 NOT NULL;--> statement-breakpoint
CREATE INDEX "vehicle_holds_ends_at" ON "vehicle_holds" USING btree ("ends_at");