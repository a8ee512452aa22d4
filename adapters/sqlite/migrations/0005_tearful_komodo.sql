CREATE TABLE `fleet_generation` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL,
	`token` text NOT NULL
);
