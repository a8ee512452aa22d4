CREATE TABLE `live_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`netid` text NOT NULL,
	`transaction_id` text NOT NULL,
	`kind` text NOT NULL,
	`role` text NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `live_events_netid` ON `live_events` (`netid`,`id`);--> statement-breakpoint
CREATE INDEX `live_events_created` ON `live_events` (`created_at`);