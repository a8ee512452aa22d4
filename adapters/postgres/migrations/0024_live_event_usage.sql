CREATE TABLE "live_event_usage" (
	"netid" text NOT NULL,
	"bucket" bigint NOT NULL,
	"writer" integer NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "live_event_usage_netid_bucket_writer_pk" PRIMARY KEY("netid","bucket","writer")
);
--> statement-breakpoint
-- The bytes already stored, counted once as writer 0 (the live event bound read the sum of live_event_bodies until now).
INSERT INTO "live_event_usage" ("netid", "bucket", "writer", "bytes")
  SELECT "netid", "created_at" / 900, 0, sum("bytes") FROM "live_event_bodies" GROUP BY 1, 2;
