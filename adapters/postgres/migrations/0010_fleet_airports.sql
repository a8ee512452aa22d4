CREATE TABLE "fleet_airports" (
	"netid" text NOT NULL,
	"airport" text NOT NULL,
	"slug" text NOT NULL,
	"lat" double precision,
	"lon" double precision,
	CONSTRAINT "fleet_airports_netid_airport_slug_pk" PRIMARY KEY("netid","airport","slug")
);
--> statement-breakpoint
CREATE INDEX "fleet_airports_slug" ON "fleet_airports" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "fleet_airports_place" ON "fleet_airports" USING btree ("netid","airport","lat","lon","slug");