ALTER TABLE `bookings` ADD `flight_due` integer;--> statement-breakpoint
CREATE INDEX `bookings_flight_due` ON `bookings` (`flight_due`) WHERE flight_due IS NOT NULL;--> statement-breakpoint
-- Hand-written: a booking stored before the column gets its flight_due as domain/trips/flights.ts:flightDue derives it.
UPDATE `bookings` SET `flight_due` = coalesce(json_extract(`trip_packet`, '$.flight.estimatedLanding'), json_extract(`trip_packet`, '$.flight.scheduledLanding'))
WHERE `status` IN ('BOOKING_REQUEST', 'PENDING', 'CONFIRMED', 'ACKNOWLEDGED', 'ASSIGNED', 'EN_ROUTE', 'ON_LOCATION', 'FAILED')
  AND json_extract(`trip_packet`, '$.flight.scheduledLanding') IS NOT NULL AND json_extract(`trip_packet`, '$.flight.landedAt') IS NULL;
