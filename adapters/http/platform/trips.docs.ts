// The OpenAPI prose of the platform trip operations (platform/trips.ts): tag, summary and description of each.

const tags = ["Trips"];

export const sendTripDoc = {
  tags,
  summary: "Send a trip, a quote request, an update or a cancellation",
  description:
    "Header `token`. `affiliateReservation.action` NEW, UPDATE or CANCEL; `reservationType` REGULAR or QUOTE. A " +
    "QUOTE is answered with vehicle options from the provider's fleet in `fees` (cheapest first, at most 20, each " +
    "valid 24 h), priced along its drop-off and stops, each placed by its coordinates, an airport's IATA code, its " +
    "address (when the service has a geocoder, GEOCODER_URL) or else its city's centre (warning " +
    "DROPOFF_APPROXIMATE); one nothing places is priced without it, warning DROPOFF_NOT_LOCATED " +
    "(docs/places.md#drop-offs-and-stops). Resubmitting the same requesterResNo as REGULAR converts it into a " +
    "booking with the same " +
    "transactionId at the quoted price: the option named in `fees[0].code` (400 naming `fees[0].code` when the " +
    "quote has no such option), else the quote's first option; that option becomes the booking's only fee line and " +
    "its fee the booking's `totalAmount`, shown in both reads, the webhooks and the provider's copy (409 " +
    "QUOTE_EXPIRED after validUntil). The price is bound to the quoted trip: a conversion (or a NEW with `quoteId`) " +
    "whose pickup, drop-off or stops, passenger or luggage count, extras or booked duration (totalTripDuration, " +
    "runType HOURLY) differ, or whose pickup time is more than 60 minutes from the quoted one, is 409 " +
    "QUOTE_TRIP_MISMATCH naming each field in `fields` and `errors`. An UPDATE that changes such a field of a " +
    "booking made from a quote prices the booked vehicle again with the provider's rates (the answer's fees and " +
    "totalAmount, and a changeLogs line, carry the new total), or is 409 REQUOTE_NEEDED when that vehicle cannot do " +
    "the new trip (out of its area, too many passengers or bags); one that moves the pickup, duration or route moves " +
    "the vehicle's hold with it in the same transaction, or is 409 VEHICLE_UNAVAILABLE (nothing changed) when " +
    "another booking or a blackout holds that vehicle then (docs/availability.md#an-update-moves-the-hold). Booking " +
    "a quote's vehicle (a conversion, a NEW with `quoteId`) is 429 HOLD_LIMIT, nothing booked, when you keep 10 " +
    "unaccepted bookings holding vehicles with that provider or 50 in all (PROFESSIONAL: 50 and 500; " +
    "docs/availability.md#hold-limits); totalTripDuration is at most 1,440 minutes (24 h). After conversion the fee lines are the " +
    "provider's: `fees` or `totalAmount` an UPDATE sends are kept under `requesterExtra`, never the price. " +
    "400 lists every failing field; 403 when requesterId is not your netid; 403 " +
    "NOT_PARTNER for a NEW or QUOTE to a provider that takes trips only from its partners (integration " +
    "`acceptTripsFrom: partners`) when you are not an active partner (booking an earlier quote included) — a " +
    "repeat of a NEW already booked, UPDATE and CANCEL of a booking already made are never refused for that; a " +
    "QUOTE whose `preferredVehicleType` the provider mapped for you (PUT /api/partners/{netid}/vehicle-types) " +
    "lists the options of the mapped type first; 400 when providerId is not a registered company; 404 for " +
    "UPDATE/CANCEL of an unknown booking; 409 for a requesterResNo reused with different content, an invalid " +
    "status change or an expired quote; 413 BOOKING_TOO_LARGE for an UPDATE that would grow the booking as a whole " +
    "past MAX_BODY_BYTES (members an UPDATE sends are merged into the stored trip: replace members rather than " +
    "adding new ones), and 400 BOOKING_TOO_MANY_MEMBERS for one that would give the trip or affiliateReservation " +
    "more than 1,000 members no schema names (any object of more than 1,000 members in a body is 400 " +
    "JSON_TOO_WIDE). A member you send under a name the exchange or the provider writes (chauffeur, vehicle, " +
    "location, providerUpdate, providerNote, providerResCode, providerResNo, userid, fromConextId…), or one the " +
    "exchange owns (acceptBy, offers, reason, terms, finalFare, evidence, eta, arrivedAt: " +
    "docs/security.md#owned-members), in any letter case, is kept and shown only under `requesterExtra` (in the " +
    "trip, or in affiliateReservation), never as the exchange's. Supports `Idempotency-Key`. 429 " +
    "RATE_LIMITED when your company's sendTrip calls per minute are spent (Retry-After; RateLimit-Limit, " +
    "-Remaining and -Reset on every answer); 429 LIVE_EVENTS_QUOTA (Retry-After, nothing changed) when the change's " +
    "live events would pass your company's 50 MB over the 25 h the event log keeps them.",
};

export const providerUpdateStatusDoc = {
  tags,
  summary: "Provider: update a booking's status and details",
  description:
    "By the provider's token. Moves the booking along the lifecycle (GET /api/trip-states; legacy ENROUTE, " +
    "AT_LOCATION, ACCEPTED accepted; a forward move along the main path may skip states, and the changeLogs entry " +
    "names them) and records providerResNo (or GNet's resNo), providerNote, totalAmount, fees, vehicle, chauffeur, " +
    "the chauffeur's position (lat/lon) and GNet's LocalTimestamp/UTCtimestamp/griddID; every change appends a " +
    "changeLogs entry. Sending the current status changes only the details. The price is the sum of its lines " +
    "(docs/terms.md#the-price-is-the-sum-of-its-lines): `fees` is the whole list — on a booking made from a quote, " +
    "its quoted lines first and unchanged, then lines you add of GNet's types CHARGE, EXPENSE or EXTRA_SERVICE " +
    "(tolls, parking, waiting; each a changeLogs line, announced by the update's webhook) while the booking is not " +
    "final, and for 24 h from COMPLETE or CLOSE (docs/settlement.md#the-final-fare: repeating CLOSE with `fees` " +
    "changes only the lines; reads show `finalFare` OPEN, then FINAL, and a later change of the lines or total is " +
    "409 FARE_FINAL, nothing kept); `totalAmount`, when sent, must be their sum (left out, it becomes the sum). A quoted line changed or " +
    "left out, a total that is not the sum, an added line of another type or currency: 400 naming the field, and " +
    "nothing of the update is kept. Only you, the provider, set your " +
    "reservation number; it names at most one of your live bookings (not CLOSE, CANCEL, REJECT or NO_SHOW): a " +
    "number another of your live bookings holds is 409 PROVIDER_RES_NO_IN_USE (`field: \"providerResNo\"`) and " +
    "nothing of the update is kept. 413 BOOKING_TOO_LARGE when the details would grow the booking past " +
    "MAX_BODY_BYTES. 409 INVALID_TRANSITION lists the `allowed` next states. The trip's own statuses wait for the " +
    "trip (docs/integration.md#trip-statuses-wait-for-the-trip): EN_ROUTE or a later one (ON_LOCATION, " +
    "PASSENGER_ON_BOARD, NO_SHOW, STOP, COMPLETE, CLOSE) more than 12 h before the pickup is 409 STATUS_TOO_EARLY " +
    "naming `allowedFrom`, and nothing of the update is kept. 409 OFFER_LAPSED when you accept (CONFIRMED or later) " +
    "after the booking's acceptBy (docs/terms.md#the-acceptance-deadline-acceptby). 403 when the requester calls it; 404 for anyone else " +
    "or an unknown id. Answers the JSON string \"OK\". Supports `Idempotency-Key`.",
};

export const cancelTripDoc = {
  tags,
  summary: "Requester: cancel a trip",
  description:
    "By the requester's token; allowed from any state before PASSENGER_ON_BOARD (409 INVALID_TRANSITION " +
    "otherwise). Free while the provider has not accepted (BOOKING_REQUEST, PENDING, FAILED); after it accepted " +
    "and past the free window, the booking's terms charge a percent of its quoted lines (GET " +
    "/api/reservation/{transactionId}/cancel-fee says what and why). 403 when the provider calls it (the provider " +
    "sets CANCEL through providerUpdateStatus); 404 for anyone else or an unknown id. Answers the JSON string " +
    "\"OK\". Supports `Idempotency-Key`.",
};

export const getReservationByTransactionIdDoc = {
  tags,
  summary: "Get a booking by transactionId (GNet's reservation object)",
  description:
    "GNet's reservation object at the top level — the trip as stored, `transactionId`, the lifecycle `status`, " +
    "`totalAmount`, `affiliateReservation` (its `status` FAILED while delivery to the provider is failing), the " +
    "provider's vehicle, chauffeur and note, transactionErrors and changeLogs — beside `success` and `data`, the " +
    "same booking as GET /api/reservation/{transactionId} shows it. Only the requester and the provider see it; " +
    "anyone else and an unknown id get the same 404; a non-UUID id is 400.",
};

export const providerUpdateStatusByResNoDoc = {
  tags,
  summary: "Provider: update a booking named by your netid and your reservation number (GNet)",
  description:
    "GNet's provider update: the booking is the one whose provider is `netid` (your netid, any letter case) and to " +
    "which you gave the number `resNo` (its providerResNo/targetResNo; a number a requester sent is never one of " +
    "yours). A number names at most one live booking; should an ended one share it, the live one is updated. Same " +
    "body, rules and answers as providerUpdateStatusByTransactionId. 404 when no booking of yours has that number " +
    "(or you are not its party); 403 when the requester calls it; 409 STATUS_TOO_EARLY for EN_ROUTE or a later " +
    "status more than 12 h before the pickup. Supports `Idempotency-Key`.",
};

export const getReservationByReservationIdDoc = {
  tags,
  summary: "Get a booking by a party's reservation number (GNet)",
  description:
    "`netid` is either party's netid (any letter case) and `resNo` that party's own reservation number: the " +
    "requester's requesterResNo or the provider's providerResNo (a number only the provider gives; the live " +
    "booking when an ended one shares it). The same answer as getReservationByTransactionId (GNet's reservation " +
    "object at the top level, `success` and `data` beside it); only the two parties see it; anyone else and an " +
    "unknown number get the same 404.",
};

export const cancelTripByResNoDoc = {
  tags,
  summary: "Requester: cancel a trip named by your netid and your reservation number (GNet)",
  description:
    "GET or POST. `netid` is your netid (any letter case) and `resNo` your requesterResNo. Same rules and answers " +
    "as cancelTripByTransactionId: allowed from any state before PASSENGER_ON_BOARD (409 INVALID_TRANSITION " +
    "otherwise); 403 when the provider calls it; 404 for anyone else or an unknown number. Answers the JSON string " +
    "\"OK\". Supports `Idempotency-Key`.",
};
