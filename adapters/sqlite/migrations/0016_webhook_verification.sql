ALTER TABLE `company_integrations` ADD `webhook_verified_at` integer;
--> statement-breakpoint
-- Webhook URLs set before verification existed keep receiving: only a new URL must answer the challenge.
UPDATE "company_integrations" SET "webhook_verified_at" = "updated_at" WHERE "webhook_url" IS NOT NULL;