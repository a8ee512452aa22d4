ALTER TABLE `fleet_entries` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `fleet_entries_netid_external_id` ON `fleet_entries` (`netid`,`external_id`);