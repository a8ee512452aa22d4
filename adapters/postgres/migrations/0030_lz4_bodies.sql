-- The large texts a booking writes are compressed with lz4 instead of pglz: a live event's body (~2.5 KB) is compressed
-- at every new booking, and pglz costs several times lz4's CPU for the same bytes
-- (docs/postgres.md#settings-for-a-deployment). Values already stored keep their compression. A server built
-- without lz4 (or older than PostgreSQL 14) keeps pglz: the migration says so and goes on.
DO $$
DECLARE
	col text;
BEGIN
	FOREACH col IN ARRAY ARRAY['live_event_bodies.body', 'live_events.body', 'bookings.trip_packet', 'bookings.change_logs', 'outbox_messages.body'] LOOP
		EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET COMPRESSION lz4', split_part(col, '.', 1), split_part(col, '.', 2));
	END LOOP;
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
	RAISE NOTICE 'lz4 compression not available on this server (%): pglz kept', SQLERRM;
END;
$$;
