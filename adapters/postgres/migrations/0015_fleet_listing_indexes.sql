DROP INDEX "fleet_entries_netid";--> statement-breakpoint
CREATE INDEX "fleet_entries_netid_slug" ON "fleet_entries" USING btree ("netid","slug" COLLATE "C");--> statement-breakpoint
CREATE INDEX "fleet_entries_netid_name" ON "fleet_entries" USING btree ("netid","name" COLLATE "C","slug" COLLATE "C");--> statement-breakpoint
CREATE INDEX "fleet_entries_netid_passengers" ON "fleet_entries" USING btree ("netid","max_passengers","slug" COLLATE "C");