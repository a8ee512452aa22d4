CREATE TABLE "vehicle_holds" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"provider_netid" text NOT NULL,
	"kind" text NOT NULL,
	"transaction_id" text,
	"starts_at" bigint NOT NULL,
	"ends_at" bigint NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_integrations" ADD COLUMN "turnaround_minutes" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "company_integrations" ADD COLUMN "minimum_notice_minutes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "vehicle_holds" ADD CONSTRAINT "vehicle_holds_slug_fleet_entries_slug_fk" FOREIGN KEY ("slug") REFERENCES "public"."fleet_entries"("slug") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vehicle_holds_slug_ends" ON "vehicle_holds" USING btree ("slug","ends_at");--> statement-breakpoint
CREATE INDEX "vehicle_holds_provider_ends" ON "vehicle_holds" USING btree ("provider_netid","ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "vehicle_holds_transaction" ON "vehicle_holds" USING btree ("transaction_id");