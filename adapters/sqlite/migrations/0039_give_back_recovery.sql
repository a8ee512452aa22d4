CREATE TABLE `cost_recoveries` (
	`transaction_id` text PRIMARY KEY NOT NULL,
	`requester_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`currency` text NOT NULL,
	`percent` integer NOT NULL,
	`pickup_date` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	`waived` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cost_recoveries_requester_provider_pickup` ON `cost_recoveries` (`requester_id`,`provider_id`,`pickup_date`);--> statement-breakpoint
CREATE INDEX `cost_recoveries_provider_requester_pickup` ON `cost_recoveries` (`provider_id`,`requester_id`,`pickup_date`);--> statement-breakpoint
ALTER TABLE `company_integrations` ADD `give_back_recovery` text;