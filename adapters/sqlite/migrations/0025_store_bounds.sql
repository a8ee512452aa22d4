CREATE TABLE `live_event_bodies` (
	`id` text PRIMARY KEY NOT NULL,
	`netid` text NOT NULL,
	`bytes` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `live_event_bodies_usage` ON `live_event_bodies` (`netid`,`created_at`,`bytes`);--> statement-breakpoint
CREATE INDEX `live_event_bodies_created` ON `live_event_bodies` (`created_at`);--> statement-breakpoint
ALTER TABLE `live_events` ADD `body_id` text;--> statement-breakpoint
CREATE INDEX `network_quotes_maker_created` ON `network_quotes` (`maker_netid`,`created_at`);