CREATE TABLE "fx_rates" (
	"currency" text PRIMARY KEY NOT NULL,
	"rate" text NOT NULL,
	"rate_date" text NOT NULL,
	"imported_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "company_integrations" ADD COLUMN "display_currency" text;