CREATE TABLE `network_quote_usage` (
	`netid` text NOT NULL,
	`bucket` integer NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`netid`, `bucket`)
);
--> statement-breakpoint
CREATE INDEX `vehicle_holds_provider_blackouts` ON `vehicle_holds` (`provider_netid`,`ends_at`) WHERE kind = 'BLACKOUT';--> statement-breakpoint
-- The quotes already kept, counted once (their stored text and about 200 bytes of columns each).
INSERT INTO `network_quote_usage` (`netid`, `bucket`, `bytes`)
  SELECT `maker_netid`, `created_at` / 3600, sum(length(CAST(`body` AS BLOB)) + 200) FROM `network_quotes` GROUP BY 1, 2;
