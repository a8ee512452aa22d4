ALTER TABLE "bookings" ADD COLUMN "flight_due" bigint;--> statement-breakpoint
CREATE INDEX "bookings_flight_due" ON "bookings" USING btree ("flight_due") WHERE flight_due IS NOT NULL;--> statement-breakpoint
-- Hand-written: a booking stored before the column gets its flight_due as domain/trips/flights.ts:flightDue derives it.
UPDATE "bookings" SET "flight_due" = coalesce(("trip_packet"::jsonb #>> '{flight,estimatedLanding}')::bigint, ("trip_packet"::jsonb #>> '{flight,scheduledLanding}')::bigint)
WHERE "status" IN ('BOOKING_REQUEST', 'PENDING', 'CONFIRMED', 'ACKNOWLEDGED', 'ASSIGNED', 'EN_ROUTE', 'ON_LOCATION', 'FAILED')
  AND "trip_packet"::jsonb #>> '{flight,scheduledLanding}' IS NOT NULL AND "trip_packet"::jsonb #>> '{flight,landedAt}' IS NULL;
