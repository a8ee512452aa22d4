CREATE TABLE `fleet_changes` (
	`n` integer NOT NULL,
	`slug` text NOT NULL,
	PRIMARY KEY(`n`, `slug`)
);
--> statement-breakpoint
ALTER TABLE `fleet_generation` ADD `log_base` integer DEFAULT -1 NOT NULL;--> statement-breakpoint
ALTER TABLE `fleet_generation` ADD `log_base_token` text;