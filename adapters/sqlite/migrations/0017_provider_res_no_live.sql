-- Only the provider sets its reservation number, and it names at most one live booking (CLOSE, CANCEL, REJECT and
-- NO_SHOW are final). Existing data first, so the unique index can be built:
-- 1. A number the provider never set (no changeLogs line "… → <number>" from its update or its delivery reply, and
--    no history trimmed) was a requester's copy: it moves into the trip packet's affiliateExtra (shown under
--    affiliateReservation.requesterExtra) and the booking no longer answers to it.
UPDATE `bookings` SET
	`trip_packet` = json_set(`trip_packet`, '$.affiliateExtra', json_patch(coalesce(json_extract(`trip_packet`, '$.affiliateExtra'), '{}'), json_object('providerResNo', `provider_res_no`))),
	`change_logs` = json_insert(`change_logs`, '$[#]', json_object('timestamp', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'changeSource', 'exchange:migration', 'changeDesc', 'providerResNo ' || `provider_res_no` || ' was sent by the requester, not set by the provider: kept as affiliateReservation.requesterExtra.providerResNo')),
	`provider_res_no` = NULL
WHERE `provider_res_no` IS NOT NULL
	AND `change_logs` NOT LIKE '%→ ' || `provider_res_no` || '%'
	AND `change_logs` NOT LIKE '%"changeSource":"TRIMMED"%';
--> statement-breakpoint
-- 2. A number the provider gave to several live bookings stays on the newest (the one its by-number updates reached
--    until now); the older ones let it go, with a changeLogs line saying so.
UPDATE `bookings` SET
	`change_logs` = json_insert(`change_logs`, '$[#]', json_object('timestamp', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), 'changeSource', 'exchange:migration', 'changeDesc', 'providerResNo ' || `provider_res_no` || ' → (none): a newer live booking of the provider holds this number')),
	`provider_res_no` = NULL
WHERE `provider_res_no` IS NOT NULL
	AND `status` NOT IN ('CLOSE', 'CANCEL', 'REJECT', 'NO_SHOW')
	AND EXISTS (
		SELECT 1 FROM `bookings` AS `newer`
		WHERE `newer`.`provider_id` = `bookings`.`provider_id`
			AND `newer`.`provider_res_no` = `bookings`.`provider_res_no`
			AND `newer`.`status` NOT IN ('CLOSE', 'CANCEL', 'REJECT', 'NO_SHOW')
			AND (`newer`.`submit_date` > `bookings`.`submit_date` OR (`newer`.`submit_date` = `bookings`.`submit_date` AND `newer`.`rowid` > `bookings`.`rowid`))
	);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_provider_res_no_live` ON `bookings` (`provider_id`,`provider_res_no`) WHERE provider_res_no IS NOT NULL AND status NOT IN ('CLOSE', 'CANCEL', 'REJECT', 'NO_SHOW');
