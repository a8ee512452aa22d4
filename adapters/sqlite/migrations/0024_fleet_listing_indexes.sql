DROP INDEX `fleet_entries_netid`;--> statement-breakpoint
CREATE INDEX `fleet_entries_netid_slug` ON `fleet_entries` (`netid`,`slug`);--> statement-breakpoint
CREATE INDEX `fleet_entries_netid_name` ON `fleet_entries` (`netid`,`name`,`slug`);--> statement-breakpoint
CREATE INDEX `fleet_entries_netid_passengers` ON `fleet_entries` (`netid`,`max_passengers`,`slug`);