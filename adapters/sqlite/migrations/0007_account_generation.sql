CREATE TABLE `account_generation` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
