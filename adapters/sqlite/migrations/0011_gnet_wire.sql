ALTER TABLE `company_integrations` ADD `webhook_format` text DEFAULT 'events' NOT NULL;--> statement-breakpoint
CREATE INDEX `bookings_provider_res_no` ON `bookings` (`provider_id`,`provider_res_no`);