CREATE TABLE `bookings` (
	`transaction_id` text PRIMARY KEY NOT NULL,
	`requester_id` text NOT NULL,
	`requester_res_no` text NOT NULL,
	`provider_id` text NOT NULL,
	`provider_res_no` text,
	`status` text NOT NULL,
	`reservation_type` text NOT NULL,
	`userid` text NOT NULL,
	`source_platform` text NOT NULL,
	`target_platform` text NOT NULL,
	`submit_date` integer NOT NULL,
	`pickup_date` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`total_amount` text,
	`quote_valid_until` integer,
	`content_hash` text NOT NULL,
	`version` integer NOT NULL,
	`trip_packet` text NOT NULL,
	`change_logs` text NOT NULL,
	`transaction_errors` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_requester_res_no` ON `bookings` (`requester_id`,`requester_res_no`);--> statement-breakpoint
CREATE INDEX `bookings_requester_submit` ON `bookings` (`requester_id`,`submit_date`);--> statement-breakpoint
CREATE INDEX `bookings_provider_submit` ON `bookings` (`provider_id`,`submit_date`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`netid` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`netid`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_at` ON `idempotency_keys` (`created_at`);