-- fleet_airports (see schema/fleet.ts) follows fleet_entries: a row per airport an entry lists, with its position
-- (the stored list is comma-separated 3-letter codes).
INSERT INTO "fleet_airports" ("netid", "airport", "slug", "lat", "lon")
	SELECT f."netid", a, f."slug", f."lat", f."lon" FROM "fleet_entries" f, unnest(string_to_array(f."airports", ',')) a WHERE f."airports" <> '' ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE FUNCTION "fleet_airports_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		DELETE FROM "fleet_airports" WHERE "slug" = OLD."slug";
	END IF;
	IF TG_OP <> 'DELETE' AND NEW."airports" <> '' THEN
		INSERT INTO "fleet_airports" ("netid", "airport", "slug", "lat", "lon")
			SELECT NEW."netid", a, NEW."slug", NEW."lat", NEW."lon" FROM unnest(string_to_array(NEW."airports", ',')) a ON CONFLICT DO NOTHING;
	END IF;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "fleet_airports_follow" AFTER INSERT OR DELETE OR UPDATE OF "slug", "netid", "airports", "lat", "lon" ON "fleet_entries" FOR EACH ROW EXECUTE FUNCTION "fleet_airports_follow"();
