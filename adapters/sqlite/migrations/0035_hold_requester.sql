ALTER TABLE `vehicle_holds` ADD `requester_netid` text;--> statement-breakpoint
CREATE INDEX `vehicle_holds_requester_ends` ON `vehicle_holds` (`requester_netid`,`ends_at`);--> statement-breakpoint
-- The holds already kept name their booking's requester, so a requester's limits count them too.
UPDATE `vehicle_holds` SET `requester_netid` = (SELECT `requester_id` FROM `bookings` b WHERE b.`transaction_id` = `vehicle_holds`.`transaction_id`)
  WHERE `kind` = 'BOOKING';
