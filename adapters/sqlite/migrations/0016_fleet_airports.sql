CREATE TABLE `fleet_airports` (
	`netid` text NOT NULL,
	`airport` text NOT NULL,
	`slug` text NOT NULL,
	PRIMARY KEY(`netid`, `airport`, `slug`)
);
--> statement-breakpoint
CREATE INDEX `fleet_airports_slug` ON `fleet_airports` (`slug`);