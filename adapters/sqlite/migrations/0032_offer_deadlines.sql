ALTER TABLE `bookings` ADD `offer_due` integer;--> statement-breakpoint
CREATE INDEX `bookings_offer_due` ON `bookings` (`offer_due`) WHERE offer_due IS NOT NULL;