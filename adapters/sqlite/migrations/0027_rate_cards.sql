CREATE TABLE `rate_cards` (
	`netid` text PRIMARY KEY NOT NULL,
	`card` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
