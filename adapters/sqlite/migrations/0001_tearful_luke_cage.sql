CREATE TABLE `fleet_entries` (
	`slug` text PRIMARY KEY NOT NULL,
	`netid` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`image_url` text,
	`max_passengers` integer NOT NULL,
	`max_luggage` integer,
	`lat` real,
	`lon` real,
	`airports` text DEFAULT '' NOT NULL,
	`minimum_rate` text DEFAULT '0' NOT NULL,
	`hourly_rate` text DEFAULT '0' NOT NULL,
	`currency` text DEFAULT 'USD' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `fleet_entries_netid` ON `fleet_entries` (`netid`);--> statement-breakpoint
CREATE INDEX `fleet_entries_updated_at` ON `fleet_entries` (`updated_at`);