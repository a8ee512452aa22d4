-- fleet_airports (see schema/fleet.ts) follows fleet_entries: a row per airport an entry lists, with its position.
-- Airports are stored as a comma-separated list of 3-letter codes, read here as a JSON array (json_each is allowed
-- in triggers; CTEs are not).
INSERT OR IGNORE INTO `fleet_airports` (`netid`, `airport`, `slug`, `lat`, `lon`)
	SELECT f.`netid`, j.`value`, f.`slug`, f.`lat`, f.`lon` FROM `fleet_entries` f, json_each('["' || replace(f.`airports`, ',', '","') || '"]') j WHERE f.`airports` <> '';
--> statement-breakpoint
CREATE TRIGGER `fleet_airports_insert` AFTER INSERT ON `fleet_entries` WHEN NEW.`airports` <> ''
BEGIN
	INSERT OR IGNORE INTO `fleet_airports` (`netid`, `airport`, `slug`, `lat`, `lon`) SELECT NEW.`netid`, `value`, NEW.`slug`, NEW.`lat`, NEW.`lon` FROM json_each('["' || replace(NEW.`airports`, ',', '","') || '"]');
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_airports_update` AFTER UPDATE OF `slug`, `netid`, `airports`, `lat`, `lon` ON `fleet_entries`
BEGIN
	DELETE FROM `fleet_airports` WHERE `slug` = OLD.`slug`;
	INSERT OR IGNORE INTO `fleet_airports` (`netid`, `airport`, `slug`, `lat`, `lon`) SELECT NEW.`netid`, `value`, NEW.`slug`, NEW.`lat`, NEW.`lon` FROM json_each('["' || replace(NEW.`airports`, ',', '","') || '"]') WHERE NEW.`airports` <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `fleet_airports_delete` AFTER DELETE ON `fleet_entries`
BEGIN
	DELETE FROM `fleet_airports` WHERE `slug` = OLD.`slug`;
END;
