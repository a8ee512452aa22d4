CREATE TABLE `company_integrations` (
	`netid` text PRIMARY KEY NOT NULL,
	`delivery_url` text,
	`delivery_username` text,
	`delivery_password` text,
	`luggage` text DEFAULT 'notes' NOT NULL,
	`webhook_url` text,
	`webhook_secret` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `outbox_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`channel` text NOT NULL,
	`event_type` text NOT NULL,
	`transaction_id` text NOT NULL,
	`target_netid` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` real NOT NULL,
	`last_error` text,
	`last_status` integer,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_event_id` ON `outbox_messages` (`event_id`);--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `outbox_booking` ON `outbox_messages` (`transaction_id`,`channel`,`id`);--> statement-breakpoint
CREATE INDEX `outbox_owner` ON `outbox_messages` (`target_netid`,`channel`,`id`);