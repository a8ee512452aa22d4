ALTER TABLE "bookings" ADD COLUMN "offer_due" bigint;--> statement-breakpoint
CREATE INDEX "bookings_offer_due" ON "bookings" USING btree ("offer_due") WHERE offer_due IS NOT NULL;