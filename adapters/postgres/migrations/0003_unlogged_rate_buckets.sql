-- Rate buckets are rewritten on every limited request; losing them in a crash only forgives a minute of budget,
-- so they skip the write-ahead log.
ALTER TABLE "rate_buckets" SET UNLOGGED;
