-- Rate cards join the account stamp (see 0008 and account_generation in schema/accounts.ts): a card put, replaced or
-- removed by another connection (the CLI `rates import` while `serve` runs) is then seen by the service's cache of
-- cards, which the account cache holds and empties on such a commit.
CREATE TRIGGER `rate_cards_account_stamp_insert` AFTER INSERT ON `rate_cards`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `rate_cards_account_stamp_update` AFTER UPDATE ON `rate_cards`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `rate_cards_account_stamp_delete` AFTER DELETE ON `rate_cards`
BEGIN
	UPDATE `account_generation` SET `n` = `n` + 1 WHERE `id` = 1;
END;
