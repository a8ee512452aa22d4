CREATE TABLE `vehicle_holds` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`provider_netid` text NOT NULL,
	`kind` text NOT NULL,
	`transaction_id` text,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`slug`) REFERENCES `fleet_entries`(`slug`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vehicle_holds_slug_ends` ON `vehicle_holds` (`slug`,`ends_at`);--> statement-breakpoint
CREATE INDEX `vehicle_holds_provider_ends` ON `vehicle_holds` (`provider_netid`,`ends_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `vehicle_holds_transaction` ON `vehicle_holds` (`transaction_id`);--> statement-breakpoint
ALTER TABLE `company_integrations` ADD `turnaround_minutes` integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE `company_integrations` ADD `minimum_notice_minutes` integer DEFAULT 0 NOT NULL;