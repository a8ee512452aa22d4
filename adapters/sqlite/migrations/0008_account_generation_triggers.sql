-- The account stamp (see account_generation in schema/accounts.ts): every row of the tables the account caches
-- read, inserted, updated or deleted, adds one to n in the same transaction, so a cache on another connection
-- can tell an account change from other commits (bookings, outbox, fleet).
INSERT INTO `account_generation` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `companies_account_stamp_insert` AFTER INSERT ON `companies`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `companies_account_stamp_update` AFTER UPDATE ON `companies`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `companies_account_stamp_delete` AFTER DELETE ON `companies`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_account_stamp_insert` AFTER INSERT ON `users`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_account_stamp_update` AFTER UPDATE ON `users`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_account_stamp_delete` AFTER DELETE ON `users`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `platform_tokens_account_stamp_insert` AFTER INSERT ON `platform_tokens`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `platform_tokens_account_stamp_update` AFTER UPDATE ON `platform_tokens`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `platform_tokens_account_stamp_delete` AFTER DELETE ON `platform_tokens`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `company_integrations_account_stamp_insert` AFTER INSERT ON `company_integrations`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `company_integrations_account_stamp_update` AFTER UPDATE ON `company_integrations`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `company_integrations_account_stamp_delete` AFTER DELETE ON `company_integrations`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
