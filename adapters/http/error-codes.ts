/** One stable `code` of the error envelope `{success: false, message, code}`. */
export interface ErrorCode {
  code: string;
  status: number;
  meaning: string;
}

/** The meanings too long for one line of the table. */
const LONG_MEANINGS = {
  PICKUP_NOT_LOCATED: "A quote's pickup cannot be placed (no lat/lon, no known airport, an unknown city); `errors[]` names " +
    "locations.pickup",
  DROPOFF_NOT_LOCATED: "POST /api/quotes: a drop-off or stop nothing can place (no lat/lon, no known airport, an address not " +
    "found, no known city); `errors[]` names each (locations.dropOff, locations.stops[i])",
  WRONG_CREDENTIAL_KIND: "The other kind of credential than the route takes: the message says which one it takes (core JWT as " +
    "`Authorization: Bearer`, from POST /api/token; or the platform `token` header, from POST " +
    "/Platform.svc/getToken2)",
  PROVIDER_RES_NO_IN_USE: "Provider update: another of your live bookings holds this reservation number (providerResNo/resNo); a number " +
    "names at most one live booking",
  STATUS_TOO_EARLY: "Provider update: EN_ROUTE or a later status of the trip (ON_LOCATION, PASSENGER_ON_BOARD, NO_SHOW, STOP, " +
    "COMPLETE, CLOSE) more than 12 h before the pickup; `allowedFrom` says from when; nothing of the update was kept",
  NO_SHOW_TOO_EARLY: "Provider update: NO_SHOW before the free waiting minutes (terms.freeWaitingMinutes) have passed after the " +
    "later of the chauffeur's arrival (arrivedAt) and the pickup; `allowedFrom` says from when; nothing of the update was kept",
  BOOKING_TOO_MANY_MEMBERS: "An UPDATE would give the booking's trip or affiliateReservation more members no schema names than one object " +
    "may have (1,000); `limit`, `field` and `members` say which",
  BOOKING_TOO_LARGE: "An UPDATE or provider update would grow the booking past what one request may carry (MAX_BODY_BYTES); " +
    "`limit`, `maxBytes` and `size` say by how much",
  LIVE_EVENTS_QUOTA: "A booking change would pass your company's bound on stored live events (50 MB over the 25 h the log " +
    "keeps them, LIVE_EVENTS_MAX_BYTES: event bodies, and the stored booking version each change replaced): nothing was " +
    "changed; retry after Retry-After seconds",
  QUOTE_STORE_QUOTA: "POST /api/quotes: your company stored its bound of network quotes in the last hour (2,000, QUOTES_PER_HOUR); " +
    "nothing was stored; retry after Retry-After seconds",
  QUOTE_STORE_FULL: "POST /api/quotes: your company keeps its bound of network quote bytes (64 MiB, QUOTES_MAX_KEPT_BYTES, over " +
    "the 48 h quotes are kept, until the pickup + 24 h for one booked with a fallback); nothing was stored; retry after " +
    "Retry-After seconds, when its earliest quotes go",
  BLACKOUT_LIMIT: "POST /api/fleet/{slug}/blackouts: the vehicle keeps 200 live blackouts, or your company 10,000 (live: not yet " +
    "ended); nothing was saved; remove one, or retry after Retry-After seconds, when the earliest ends",
  HOLD_LIMIT: "Booking a quote's vehicle while you keep 10 unaccepted bookings holding vehicles with that provider, or 50 in all " +
    "(PROFESSIONAL, ENTERPRISE: 50 and 500); `limit`, `scope` (provider or all) and Retry-After say which and until when; nothing booked",
  QUOTE_TOO_LARGE: "POST /api/quotes: the quote would take more than 256 KiB to keep (QUOTE_MAX_BYTES: the trip with its extra " +
    "members, the options, the warnings); nothing was stored; ask with a smaller trip or fewer providers",
};

/**
 * Every stable `code` the service answers, with its HTTP status and what it means. Served in the OpenAPI
 * document (`x-error-codes`, and as a table in its description); a test checks that every code the source
 * raises is listed here.
 */
export const ERROR_CODES: readonly ErrorCode[] = [
  // Requests the edge refuses before any route runs.
  { code: "VALIDATION_FAILED", status: 400, meaning: "One or more fields break a rule; `errors[]` names each failing field and why" },
  { code: "PICKUP_NOT_LOCATED", status: 400, meaning: LONG_MEANINGS.PICKUP_NOT_LOCATED },
  { code: "UNKNOWN_AIRPORT", status: 400, meaning: "A quote's airport pickup names an IATA code the airport directory does not know" },
  { code: "DROPOFF_NOT_LOCATED", status: 400, meaning: LONG_MEANINGS.DROPOFF_NOT_LOCATED },
  { code: "MALFORMED_JSON", status: 400, meaning: "The body is not valid JSON" },
  { code: "INVALID_ENCODING", status: 400, meaning: "The body is not valid UTF-8" },
  { code: "JSON_TOO_DEEP", status: 400, meaning: "The JSON body nests deeper than the service accepts" },
  { code: "JSON_TOO_WIDE", status: 400, meaning: "An object in the JSON body has more members than the service accepts (1,000)" },
  { code: "RESERVED_KEY", status: 400, meaning: "The JSON body uses a reserved key (such as `__proto__`)" },
  { code: "NUL_CHARACTER", status: 400, meaning: "Text in the body, path or query contains the NUL character (U+0000)" },
  { code: "ROUTE_NOT_FOUND", status: 404, meaning: "No route for this method and path" },
  { code: "PAYLOAD_TOO_LARGE", status: 413, meaning: "The body exceeds the size limit (MAX_BODY_BYTES; 16 MiB for the fleet import, 1 MiB for a rate card)" },
  { code: "UNSUPPORTED_MEDIA_TYPE", status: 415, meaning: "A body was sent that is not `application/json`" },
  { code: "RATE_LIMITED", status: 429, meaning: "Your per-minute or per-hour budget for this kind of call is spent; retry after Retry-After seconds" },
  { code: "LIVE_EVENTS_QUOTA", status: 429, meaning: LONG_MEANINGS.LIVE_EVENTS_QUOTA },
  { code: "QUOTE_STORE_QUOTA", status: 429, meaning: LONG_MEANINGS.QUOTE_STORE_QUOTA },
  { code: "QUOTE_TOO_LARGE", status: 429, meaning: LONG_MEANINGS.QUOTE_TOO_LARGE },
  { code: "QUOTE_STORE_FULL", status: 429, meaning: LONG_MEANINGS.QUOTE_STORE_FULL },
  { code: "DATABASE_BUSY", status: 503, meaning: "The database is busy: nothing was changed; send the request again after Retry-After seconds" },
  { code: "STORAGE_FULL", status: 503, meaning: "The service's storage is full or failing: nothing was changed; send the request again later (Retry-After)" },
  { code: "INTERNAL", status: 500, meaning: "An unexpected fault; quote the answer's `requestId` when reporting it" },
  // Credentials.
  { code: "MISSING_TOKEN", status: 401, meaning: "No credential: send `Authorization: Bearer <token>` (core) or the header `token` (platform)" },
  { code: "WRONG_CREDENTIAL_KIND", status: 401, meaning: LONG_MEANINGS.WRONG_CREDENTIAL_KIND },
  { code: "INVALID_TOKEN", status: 401, meaning: "The token is malformed, expired, released, or its user no longer exists" },
  { code: "INVALID_CREDENTIALS", status: 401, meaning: "Unknown user or wrong password (the two answer the same)" },
  { code: "INVALID_METRICS_TOKEN", status: 401, meaning: "GET /metrics wants `Authorization: Bearer <METRICS_TOKEN>`" },
  { code: "LOGIN_THROTTLED", status: 429, meaning: "Too many failed logins for this user or client address; retry after Retry-After seconds" },
  { code: "USER_PROFILE_NOT_FOUND", status: 404, meaning: "Fleet search: the token is valid but its user was removed" },
  // Accounts and partnerships.
  { code: "ALREADY_REGISTERED", status: 409, meaning: "Registration: the netid, e-mail or phone is taken; `field` names it" },
  { code: "COMPANY_NOT_FOUND", status: 404, meaning: "No company with this netid" },
  { code: "ALREADY_PARTNERS", status: 409, meaning: "The two companies are partners already" },
  { code: "PARTNERSHIP_ALREADY_REQUESTED", status: 409, meaning: "You already asked this company; it has not accepted yet" },
  { code: "PARTNERSHIP_EXISTS", status: 409, meaning: "A partnership between the two companies was recorded at the same time by another request" },
  { code: "NO_PARTNERSHIP_REQUEST", status: 409, meaning: "Accept: the other company has not asked you (or you asked it: only it can accept)" },
  { code: "PARTNERSHIP_NOT_FOUND", status: 404, meaning: "No partnership (active or requested) with this company" },
  // Fleet.
  { code: "FLEET_ENTRY_NOT_FOUND", status: 404, meaning: "No entry of yours with this slug" },
  { code: "FLEET_QUOTA_EXCEEDED", status: 403, meaning: "Your plan's fleet size would be exceeded; nothing was saved" },
  {
    code: "NOT_AN_OPERATOR",
    status: 403,
    meaning: "Your company is registered to book rides (coType CO): it cannot add vehicles or a rate card, nor change a vehicle but to set it inactive",
  },
  {
    code: "FX_FILE_INVALID",
    status: 400,
    meaning: "fx import (CLI): the file is not the ECB's reference rates (CSV or XML) or a date or rate in it is wrong; `errors[]` names each " +
      "(file, date, rates.<code>); nothing was saved",
  },
  {
    code: "FX_FILE_DOUBTFUL",
    status: 400,
    meaning: "fx import (CLI): the table is older than the one in use, or a rate lies outside 0.0001–1,000,000 per EUR; `errors[]` names " +
      "each (date, rates.<code>); nothing was saved; `fx import --force` imports it all the same",
  },
  { code: "RATE_CARD_NOT_FOUND", status: 404, meaning: "GET or DELETE /api/company/rates: you have no rate card" },
  // Trips.
  { code: "NOT_YOUR_NETID", status: 403, meaning: "sendTrip: `requesterId` is not your netid" },
  { code: "NOT_PARTNER", status: 403, meaning: "The provider takes trips only from its partners, and you are not one" },
  { code: "REQUESTER_ONLY", status: 403, meaning: "Only the booking's requester may do this" },
  { code: "PROVIDER_ONLY", status: 403, meaning: "Only the booking's provider may do this" },
  { code: "BOOKING_NOT_FOUND", status: 404, meaning: "No booking with this id or number that you are a party of (the two answer the same)" },
  { code: "DUPLICATE_RESERVATION", status: 409, meaning: "The requesterResNo is used by another booking with different content; `transactionId` names it" },
  { code: "PROVIDER_RES_NO_IN_USE", status: 409, meaning: LONG_MEANINGS.PROVIDER_RES_NO_IN_USE },
  { code: "BOOKING_TOO_MANY_MEMBERS", status: 400, meaning: LONG_MEANINGS.BOOKING_TOO_MANY_MEMBERS },
  { code: "BOOKING_TOO_LARGE", status: 413, meaning: LONG_MEANINGS.BOOKING_TOO_LARGE },
  { code: "INVALID_TRANSITION", status: 409, meaning: "The status change is not allowed from the booking's status; `allowed` lists the next states" },
  { code: "STATUS_TOO_EARLY", status: 409, meaning: LONG_MEANINGS.STATUS_TOO_EARLY },
  { code: "NO_SHOW_TOO_EARLY", status: 409, meaning: LONG_MEANINGS.NO_SHOW_TOO_EARLY },
  { code: "NOT_UPDATABLE", status: 409, meaning: "The booking's status no longer allows an UPDATE" },
  { code: "QUOTE_EXPIRED", status: 409, meaning: "The quote's (or network quote's) validity ended; request a new quote" },
  {
    code: "VEHICLE_UNAVAILABLE",
    status: 409,
    meaning:
      "The quoted vehicle was booked or blocked since the quote (nothing was booked: request a new quote), or an UPDATE would move a " +
      "booking's hold onto an hour another booking or a blackout holds (nothing changed), or a flight status would move the pickup " +
      "onto such an hour (nothing of the move kept; both parties warned: booking.pickup_move_blocked)",
  },
  { code: "NO_FLIGHT", status: 409, meaning: "POST /api/reservation/{id}/flight-status: the booking's pickup names no flight (locations.pickup.flightInfo)" },
  {
    code: "FLIGHT_SCHEDULE_UNKNOWN",
    status: 409,
    meaning: "POST /api/reservation/{id}/flight-status: no scheduled landing to count the pickup's offset from; send scheduledArrival",
  },
  {
    code: "PICKUP_NOT_MOVABLE",
    status: 409,
    meaning: "POST /api/reservation/{id}/flight-status: a quote, or a booking whose passenger is on board or that ended, no longer follows its flight",
  },
  {
    code: "VEHICLES_HELD",
    status: 409,
    meaning: "DELETE /api/fleet/{slug} or a replace import would delete vehicles live bookings hold; nothing changed (`vehicles` names them)",
  },
  { code: "HOLD_LIMIT", status: 429, meaning: LONG_MEANINGS.HOLD_LIMIT },
  { code: "OFFER_LAPSED", status: 409, meaning: "Provider update: accepting (CONFIRMED or later) after the booking's acceptBy; the offer lapsed" },
  { code: "FARE_FINAL", status: 409, meaning: "Provider update: a change of the fee lines or total after the final fare (24 h after COMPLETE or CLOSE)" },
  { code: "BLACKOUT_NOT_FOUND", status: 404, meaning: "No blackout with this id on this vehicle of yours" },
  { code: "BLACKOUT_LIMIT", status: 429, meaning: LONG_MEANINGS.BLACKOUT_LIMIT },
  {
    code: "PROVIDER_NOT_FOUND",
    status: 404,
    meaning: "GET /api/providers/{netid}/record: no company offering rides holds this netid (an unknown netid and a requester-only company answer alike)",
  },
  { code: "QUOTE_NOT_FOUND", status: 404, meaning: "No network quote of your company with this quoteId (someone else's answers the same)" },
  { code: "QUOTE_NOT_UPDATABLE", status: 409, meaning: "A quote cannot be updated; request a new one or resubmit it as REGULAR" },
  {
    code: "QUOTE_TRIP_MISMATCH",
    status: 409,
    meaning:
      "Booking a quote (a QUOTE resubmitted as REGULAR, a network quote's option) with another trip than the one quoted: another " +
      "pickup, drop-off or stops, a pickup time more than 60 minutes away, another passenger or luggage count, extras or booked " +
      "duration. `fields` and `errors[].field` name each; nothing is booked",
  },
  {
    code: "REQUOTE_NEEDED",
    status: 409,
    meaning:
      "An UPDATE changes a priced field of a booking made from a quote, and the booked vehicle cannot do the changed trip (out of " +
      "its area, too many passengers or bags, no longer active); nothing was changed: request a new quote",
  },
  { code: "BOOKING_CHANGED", status: 409, meaning: "The booking changed while an UPDATE's new price was worked out; send the UPDATE again" },
  { code: "IDEMPOTENCY_KEY_REUSED", status: 409, meaning: "This Idempotency-Key was used with a different request body" },
  { code: "IDEMPOTENCY_IN_PROGRESS", status: 409, meaning: "A request with this Idempotency-Key is still running; retry after it finished" },
  // Delivery and tracking.
  { code: "NOTHING_TO_RETRY", status: 409, meaning: "retryTransaction: no delivery of the booking is pending or failing" },
  { code: "DELIVERY_NOT_FOUND", status: 404, meaning: "No webhook delivery of yours with this id" },
  { code: "NO_WEBHOOK_URL", status: 409, meaning: "Webhook verification or test event: your integration has no webhook URL" },
  { code: "WEBHOOK_NOT_VERIFIED", status: 409, meaning: "Test event: your webhook URL has not answered its challenge yet, so nothing is sent there" },
  { code: "WEBHOOK_TEST_LIMITED", status: 429, meaning: "10 test events were sent within the hour; retry after Retry-After seconds" },
  { code: "REPLAY_LIMITED", status: 429, meaning: "This webhook delivery was replayed 5 times within the hour; retry after Retry-After seconds" },
  { code: "NO_POSITION", status: 404, meaning: "The booking has no chauffeur position to show you" },
  { code: "POSITION_PRIVATE", status: 404, meaning: "The trip has ended: its chauffeur's position is shown only to the provider now" },
  { code: "POSITION_THROTTLED", status: 429, meaning: "At most one chauffeur position per booking per second" },
  // Event streams.
  // Statements (docs/settlement.md#statements-and-settlement).
  {
    code: "STATEMENT_NOT_FOUND",
    status: 404,
    meaning: "GET /api/statements: you have no settled booking with this counterparty in any month (an unknown netid answers alike)",
  },
  {
    code: "STATEMENT_LINE_NOT_FOUND",
    status: 404,
    meaning: "POST /api/statements/disputes: no booking between you and another company has this transactionId",
  },
  {
    code: "NOT_ON_STATEMENT",
    status: 409,
    meaning: "POST /api/statements/disputes: this booking of yours is on no statement (no CLOSE'd fare, cancellation fee or cost recovery)",
  },
  { code: "STATEMENT_FINAL", status: 409, meaning: "POST /api/statements/disputes: the month's statement is FINAL; its lines can no longer be disputed" },
  {
    code: "DISPUTE_OPEN",
    status: 409,
    meaning: "POST /api/statements/disputes: this line has an open dispute already; it ends when the other party answers",
  },
  { code: "DISPUTE_NOT_FOUND", status: 404, meaning: "No dispute of a line between you and another company has this id" },
  { code: "NOT_THE_OTHER_PARTY", status: 403, meaning: "Answering a dispute you raised: the other party answers it" },
  { code: "DISPUTE_ENDED", status: 409, meaning: "Answering a dispute that has been accepted or answered already" },
];