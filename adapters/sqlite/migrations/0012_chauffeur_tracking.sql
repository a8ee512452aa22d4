CREATE TABLE `chauffeur_positions` (
	`transaction_id` text PRIMARY KEY NOT NULL,
	`lat` real NOT NULL,
	`lon` real NOT NULL,
	`timestamp` text NOT NULL,
	`received_at` integer NOT NULL,
	`seq` integer NOT NULL,
	`chf_id` text,
	`chf_name` text,
	`phone_no` text,
	`gridd_id` text
);
--> statement-breakpoint
CREATE TABLE `position_trail` (
	`transaction_id` text NOT NULL,
	`slot` integer NOT NULL,
	`seq` integer NOT NULL,
	`lat` real NOT NULL,
	`lon` real NOT NULL,
	`timestamp` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`transaction_id`, `slot`)
);
