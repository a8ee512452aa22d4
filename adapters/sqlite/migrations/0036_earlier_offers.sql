CREATE TABLE `earlier_offers` (
	`transaction_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`submit_date` integer NOT NULL,
	PRIMARY KEY(`transaction_id`, `provider_id`)
);
--> statement-breakpoint
CREATE INDEX `earlier_offers_provider_submit` ON `earlier_offers` (`provider_id`,`submit_date`);--> statement-breakpoint
-- earlier_offers (see schema/trips.ts) follows bookings: when the cascade gives a booking another provider, the one it
-- leaves keeps a row. Bookings moved before this migration, within the record's 90 days, are read from their offers.
INSERT OR IGNORE INTO `earlier_offers` (`transaction_id`, `provider_id`, `submit_date`)
	SELECT b.`transaction_id`, json_extract(o.`value`, '$.provider'), b.`submit_date` FROM `bookings` b, json_each(b.`trip_packet`, '$.offers') o
	WHERE b.`submit_date` >= CAST(strftime('%s', 'now') AS INTEGER) - 7776000 AND b.`reservation_type` <> 'QUOTE'
		AND json_type(o.`value`, '$.provider') = 'text' AND json_extract(o.`value`, '$.provider') <> b.`provider_id`;
--> statement-breakpoint
CREATE TRIGGER `earlier_offers_follow` AFTER UPDATE OF `provider_id` ON `bookings` WHEN OLD.`provider_id` <> NEW.`provider_id`
BEGIN
	INSERT OR IGNORE INTO `earlier_offers` (`transaction_id`, `provider_id`, `submit_date`) VALUES (OLD.`transaction_id`, OLD.`provider_id`, OLD.`submit_date`);
END;
