CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` integer NOT NULL,
	`at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`request_headers` text,
	`response_status` integer,
	`response_body` text,
	`response_truncated` integer DEFAULT false NOT NULL,
	`error` text,
	FOREIGN KEY (`message_id`) REFERENCES `outbox_messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_message` ON `delivery_attempts` (`message_id`,`id`);
