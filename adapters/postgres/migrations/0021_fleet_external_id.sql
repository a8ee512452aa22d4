ALTER TABLE "fleet_entries" ADD COLUMN "external_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "fleet_entries_netid_external_id" ON "fleet_entries" USING btree ("netid","external_id");