CREATE TABLE `network_quotes` (
	`quote_id` text PRIMARY KEY NOT NULL,
	`maker_netid` text NOT NULL,
	`maker_uid` text NOT NULL,
	`created_at` integer NOT NULL,
	`valid_until` integer NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`maker_netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `network_quotes_valid_until` ON `network_quotes` (`valid_until`);