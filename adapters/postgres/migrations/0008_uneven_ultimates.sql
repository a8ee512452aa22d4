CREATE TABLE "live_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"netid" text NOT NULL,
	"expires_at" double precision NOT NULL
);
--> statement-breakpoint
CREATE INDEX "live_streams_netid" ON "live_streams" USING btree ("netid","expires_at");