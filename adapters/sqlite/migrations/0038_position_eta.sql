ALTER TABLE `chauffeur_positions` ADD `eta_minutes` integer;--> statement-breakpoint
ALTER TABLE `chauffeur_positions` ADD `eta_at` text;