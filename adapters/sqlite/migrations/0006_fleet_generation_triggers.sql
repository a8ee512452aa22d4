-- The fleet's stamp (see fleet_generation in schema/fleet.ts): every entry inserted, updated or deleted
-- bumps n and draws a new token in the same transaction, so only an equal stamp proves a saved index current.
INSERT INTO `fleet_generation` (`id`, `n`, `token`) VALUES (1, 0, lower(hex(randomblob(8))));
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_insert` AFTER INSERT ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_update` AFTER UPDATE ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_delete` AFTER DELETE ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
END;
