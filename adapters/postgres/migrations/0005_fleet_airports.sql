CREATE TABLE "fleet_airports" (
	"netid" text NOT NULL,
	"airport" text NOT NULL,
	"slug" text NOT NULL,
	CONSTRAINT "fleet_airports_netid_airport_slug_pk" PRIMARY KEY("netid","airport","slug")
);
--> statement-breakpoint
CREATE INDEX "fleet_airports_slug" ON "fleet_airports" USING btree ("slug");