-- PostgreSQL keeps the row version a booking change replaces, and its TOAST chunks (a large trip packet goes out of
-- line in ~2 KB chunks), until VACUUM frees them for reuse (docs/postgres.md#vacuum-settings-of-bookings). Autovacuum
-- waits by default for a fifth of a table to be dead, which on a large bookings table is gigabytes of replaced
-- trips: vacuum bookings' TOAST table once 8,192 chunks (~16 MB) are dead whatever its size, and the table at 5%.
ALTER TABLE "bookings" SET (autovacuum_vacuum_scale_factor = 0.05, toast.autovacuum_vacuum_scale_factor = 0, toast.autovacuum_vacuum_threshold = 8192);
