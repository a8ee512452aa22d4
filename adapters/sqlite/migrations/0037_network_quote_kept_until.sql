DROP INDEX `network_quotes_valid_until`;--> statement-breakpoint
ALTER TABLE `network_quotes` ADD `kept_until` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The quotes already stored are kept for their validity, as before.
UPDATE `network_quotes` SET `kept_until` = `valid_until`;--> statement-breakpoint
CREATE INDEX `network_quotes_kept_until` ON `network_quotes` (`kept_until`);
