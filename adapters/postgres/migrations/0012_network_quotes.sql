CREATE TABLE "network_quotes" (
	"quote_id" text PRIMARY KEY NOT NULL,
	"maker_netid" text NOT NULL,
	"maker_uid" text NOT NULL,
	"created_at" bigint NOT NULL,
	"valid_until" bigint NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "network_quotes" ADD CONSTRAINT "network_quotes_maker_netid_companies_netid_fk" FOREIGN KEY ("maker_netid") REFERENCES "public"."companies"("netid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "network_quotes_valid_until" ON "network_quotes" USING btree ("valid_until");