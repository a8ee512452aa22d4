CREATE TABLE `companies` (
	`netid` text PRIMARY KEY NOT NULL,
	`netid_lower` text NOT NULL,
	`name` text NOT NULL,
	`co_type` text NOT NULL,
	`plan` text DEFAULT 'FREE' NOT NULL,
	`main_email` text NOT NULL,
	`main_phone` text NOT NULL,
	`address` text,
	`notes` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `companies_netid_lower` ON `companies` (`netid_lower`);--> statement-breakpoint
CREATE UNIQUE INDEX `companies_main_email` ON `companies` (`main_email`);--> statement-breakpoint
CREATE UNIQUE INDEX `companies_main_phone` ON `companies` (`main_phone`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_key_at` ON `login_failures` (`key`,`at`);--> statement-breakpoint
CREATE TABLE `platform_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`uid` text NOT NULL,
	`created_at` integer NOT NULL,
	`released_at` integer,
	FOREIGN KEY (`uid`) REFERENCES `users`(`uid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `platform_tokens_uid` ON `platform_tokens` (`uid`);--> statement-breakpoint
CREATE TABLE `users` (
	`uid` text PRIMARY KEY NOT NULL,
	`uid_lower` text NOT NULL,
	`netid` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_uid_lower` ON `users` (`uid_lower`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_netid` ON `users` (`netid`);