-- The fleet change log (see fleet_changes in schema/fleet.ts): the stamp triggers of migration 0006 now also log
-- the slug(s) each change touched, while the change is within 50,000 of the saved index's stamp (log_base).
-- A restart then loads the saved index and re-reads only these entries, instead of building from all rows.
DROP TRIGGER `fleet_entries_stamp_insert`;
--> statement-breakpoint
DROP TRIGGER `fleet_entries_stamp_update`;
--> statement-breakpoint
DROP TRIGGER `fleet_entries_stamp_delete`;
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_insert` AFTER INSERT ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
	INSERT OR IGNORE INTO `fleet_changes` (`n`, `slug`) SELECT `n`, NEW.`slug` FROM `fleet_generation` WHERE `id` = 1 AND `log_base` >= 0 AND `n` - `log_base` <= 50000;
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_update` AFTER UPDATE ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
	INSERT OR IGNORE INTO `fleet_changes` (`n`, `slug`) SELECT `n`, NEW.`slug` FROM `fleet_generation` WHERE `id` = 1 AND `log_base` >= 0 AND `n` - `log_base` <= 50000;
	INSERT OR IGNORE INTO `fleet_changes` (`n`, `slug`) SELECT `n`, OLD.`slug` FROM `fleet_generation` WHERE `id` = 1 AND `log_base` >= 0 AND `n` - `log_base` <= 50000;
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_entries_stamp_delete` AFTER DELETE ON `fleet_entries`
BEGIN
	UPDATE `fleet_generation` SET `n` = `n` + 1, `token` = lower(hex(randomblob(8))) WHERE `id` = 1;
	INSERT OR IGNORE INTO `fleet_changes` (`n`, `slug`) SELECT `n`, OLD.`slug` FROM `fleet_generation` WHERE `id` = 1 AND `log_base` >= 0 AND `n` - `log_base` <= 50000;
END;
