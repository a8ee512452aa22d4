ALTER TABLE `companies` ADD `sandbox` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `bookings_provider_status` ON `bookings` (`provider_id`,`status`);