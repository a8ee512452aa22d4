CREATE TABLE "rate_cards" (
	"netid" text PRIMARY KEY NOT NULL,
	"card" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rate_cards" ADD CONSTRAINT "rate_cards_netid_companies_netid_fk" FOREIGN KEY ("netid") REFERENCES "public"."companies"("netid") ON DELETE cascade ON UPDATE no action;