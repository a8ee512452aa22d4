CREATE TABLE "live_event_bodies" (
	"id" text PRIMARY KEY NOT NULL,
	"netid" text NOT NULL,
	"bytes" bigint NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "live_events" ADD COLUMN "body_id" text;--> statement-breakpoint
CREATE INDEX "live_event_bodies_usage" ON "live_event_bodies" USING btree ("netid","created_at","bytes");--> statement-breakpoint
CREATE INDEX "live_event_bodies_created" ON "live_event_bodies" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "network_quotes_maker_created" ON "network_quotes" USING btree ("maker_netid","created_at");