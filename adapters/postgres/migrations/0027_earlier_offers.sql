CREATE TABLE "earlier_offers" (
	"transaction_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"submit_date" bigint NOT NULL,
	CONSTRAINT "earlier_offers_transaction_id_provider_id_pk" PRIMARY KEY("transaction_id","provider_id")
);
--> statement-breakpoint
CREATE INDEX "earlier_offers_provider_submit" ON "earlier_offers" USING btree ("provider_id","submit_date");--> statement-breakpoint
-- earlier_offers (see schema/trips.ts) follows bookings: when the cascade gives a booking another provider, the one it
-- leaves keeps a row. Bookings moved before this migration, within the record's 90 days, are read from their offers.
INSERT INTO "earlier_offers" ("transaction_id", "provider_id", "submit_date")
	SELECT b."transaction_id", o ->> 'provider', b."submit_date"
	FROM "bookings" b,
		json_array_elements(CASE WHEN json_typeof(b."trip_packet"::json -> 'offers') = 'array' THEN b."trip_packet"::json -> 'offers' ELSE '[]'::json END) o
	WHERE b."submit_date" >= extract(epoch FROM now())::bigint - 7776000 AND b."reservation_type" <> 'QUOTE' AND o ->> 'provider' <> b."provider_id"
	ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION "earlier_offers_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "earlier_offers" ("transaction_id", "provider_id", "submit_date") VALUES (OLD."transaction_id", OLD."provider_id", OLD."submit_date")
		ON CONFLICT DO NOTHING;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "earlier_offers_follow" AFTER UPDATE OF "provider_id" ON "bookings" FOR EACH ROW
	WHEN (OLD."provider_id" IS DISTINCT FROM NEW."provider_id") EXECUTE FUNCTION "earlier_offers_follow"();
