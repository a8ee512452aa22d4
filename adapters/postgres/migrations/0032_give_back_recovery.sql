CREATE TABLE "cost_recoveries" (
	"transaction_id" text PRIMARY KEY NOT NULL,
	"requester_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"percent" integer NOT NULL,
	"pickup_date" bigint NOT NULL,
	"recorded_at" bigint NOT NULL,
	"waived" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_integrations" ADD COLUMN "give_back_recovery" text;--> statement-breakpoint
CREATE INDEX "cost_recoveries_requester_provider_pickup" ON "cost_recoveries" USING btree ("requester_id","provider_id","pickup_date");--> statement-breakpoint
CREATE INDEX "cost_recoveries_provider_requester_pickup" ON "cost_recoveries" USING btree ("provider_id","requester_id","pickup_date");