CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`type` text NOT NULL,
	`netid` text,
	`uid` text,
	`address` text,
	`request_id` text,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `audit_events_at` ON `audit_events` (`at`);--> statement-breakpoint
CREATE INDEX `audit_events_type_at` ON `audit_events` (`type`,`at`);--> statement-breakpoint
CREATE INDEX `audit_events_netid_at` ON `audit_events` (`netid`,`at`);