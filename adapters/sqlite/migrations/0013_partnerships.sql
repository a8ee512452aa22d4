CREATE TABLE `partner_vehicle_types` (
	`provider_netid` text NOT NULL,
	`requester_netid` text NOT NULL,
	`requester_type` text NOT NULL,
	`provider_type` text NOT NULL,
	PRIMARY KEY(`provider_netid`, `requester_netid`, `requester_type`),
	FOREIGN KEY (`provider_netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`requester_netid`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `partnerships` (
	`company_a` text NOT NULL,
	`company_b` text NOT NULL,
	`requested_by` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`accepted_at` integer,
	PRIMARY KEY(`company_a`, `company_b`),
	FOREIGN KEY (`company_a`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`company_b`) REFERENCES `companies`(`netid`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `partnerships_company_b` ON `partnerships` (`company_b`);--> statement-breakpoint
ALTER TABLE `company_integrations` ADD `accept_trips_from` text DEFAULT 'anyone' NOT NULL;