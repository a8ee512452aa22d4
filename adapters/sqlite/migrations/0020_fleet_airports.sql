CREATE TABLE `fleet_airports` (
	`netid` text NOT NULL,
	`airport` text NOT NULL,
	`slug` text NOT NULL,
	`lat` real,
	`lon` real,
	PRIMARY KEY(`netid`, `airport`, `slug`)
);
--> statement-breakpoint
CREATE INDEX `fleet_airports_slug` ON `fleet_airports` (`slug`);--> statement-breakpoint
CREATE INDEX `fleet_airports_place` ON `fleet_airports` (`netid`,`airport`,`lat`,`lon`,`slug`);