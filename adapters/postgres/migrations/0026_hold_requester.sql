ALTER TABLE "vehicle_holds" ADD COLUMN "requester_netid" text;--> statement-breakpoint
CREATE INDEX "vehicle_holds_requester_ends" ON "vehicle_holds" USING btree ("requester_netid","ends_at");--> statement-breakpoint
-- The holds already kept name their booking's requester, so a requester's limits count them too.
UPDATE "vehicle_holds" h SET "requester_netid" = b."requester_id" FROM "bookings" b
  WHERE h."kind" = 'BOOKING' AND b."transaction_id" = h."transaction_id";
