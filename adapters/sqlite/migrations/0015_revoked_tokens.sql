CREATE TABLE `revoked_tokens` (
	`token_id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_tokens_expires_at` ON `revoked_tokens` (`expires_at`);