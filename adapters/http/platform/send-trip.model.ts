import { t } from "elysia";
import { ACCEPT_WITHIN_MINUTES, FALLBACK } from "../core/offers.model";
import sendTripNew from "../examples/sendtrip-new.json";
import sendTripQuote from "../examples/sendtrip-quote.json";
import quoteResponse from "../examples/quote-response.json";
import sendTripGnet from "../examples/sendtrip-gnet-style.json";
import { Breakdown } from "../core/rates.model";
import { flag, MAX_FEES, MAX_IMAGES, MAX_PHONES, numberOrText, open, Phone, str } from "../gnet-fields";
import { TermsOut } from "../core/terms.model";

// sendTrip's model: the reservation a requester sends, and the answer.

export const MAX_PASSENGERS = 50;
export const MAX_STOPS = 25;
export const MAX_NOTES = 50;

const locationFields = {
  locationType: str(
    50,
    "e.g. airport, address. With `airport` and an IATA code in address or landmark, the pickup time is read in " + "that airport's time zone.",
    "airport",
  ),
  landmark: str(500),
  lat: numberOrText(32, "Decimal latitude, -90 to 90: a string or a JSON number; stored and shown as a string", "40.6413"),
  lon: numberOrText(32, "Decimal longitude, -180 to 180: a string or a JSON number; stored and shown as a string", "-73.7781"),
  address: str(500),
  address1: str(500, "GNet: first address line"),
  address2: str(500, "GNet: second address line"),
  city: str(200),
  state: str(100),
  zipCode: str(32),
  country: str(64),
  time: str(64, "Pickup: ISO 8601 date-time. Without an offset it is local time of the pickup place.", "2026-12-03T18:45:00"),
  flightInfo: t.Optional(
    t.Object(
      {
        airlineCode: str(16, "Pickup: the airline's 2–3 character code (IATA or ICAO), never TBD", "B6"),
        flightNumber: numberOrText(16, "Pickup: 1–4 digits with an optional letter (the airline code before it is accepted), never TBD", "1544"),
        scheduledArrival: str(
          64,
          "Pickup: the scheduled landing, a wall-clock time at the pickup airport (or an instant); the booking keeps " +
            "pickupOffsetMinutes = pickup − landing, and its pickup follows the flight (docs/flights.md#flights)",
          "2026-12-11T20:40:00",
        ),
      },
      open("The flight a pickup meets (checked on the pickup only: 400 naming the member); members not named here are kept verbatim."),
    ),
  ),
  specialInstructions: str(2000, "Instructions for this place (e.g. baggage claim 5)"),
  meetAndGreet: flag("GNet: meet and greet at this place"),
  FBO: flag("GNet: a fixed-base operator (private aviation terminal)"),
  pointOnLocation: str(500, "GNet: where exactly to meet at this place"),
};

export const Location = t.Object(locationFields, open("A place of the trip. Text fields at most 500 characters; members not named here are kept verbatim."));

const Stop = t.Object(
  { ...locationFields, stopNumber: numberOrText(4, "The stop's order, 1–999", 1) },
  open("An intermediate stop: the location fields (address required) and stopNumber."),
);

export const PassengerSchema = t.Object(
  {
    firstName: str(100, "Required on NEW"),
    lastName: str(100, "Required on NEW"),
    email: str(254),
    phoneNumber: str(64),
    accountNumber: str(100),
    phones: t.Optional(
      t.Array(Phone, { maxItems: MAX_PHONES, description: `GNet: at most ${MAX_PHONES} phone numbers`, error: `at most ${MAX_PHONES} phones` }),
    ),
  },
  open(),
);

export const AccountSchema = t.Object(
  { accountNumber: str(100), accountName: str(250), callerName: str(200), callerNumber: str(64), callerEmail: str(254) },
  open(),
);

const Note = t.Object(
  {
    message: str(4000, "Required"),
    context: str(16, "AFFILIATE (for the provider's office) or DRIVER (for the chauffeur)", "DRIVER"),
  },
  open(),
);

export const FeeSchema = t.Object(
  {
    type: str(50, "e.g. OTHER", "OTHER"),
    code: str(200, "On a quote option: the option's code (the fleet entry's slug). Send the chosen one as fees[0].code when converting a quote."),
    name: str(250),
    description: str(2000),
    fee: numberOrText(
      32,
      "Decimal amount (string or number) in the minor unit of the line's currency, else the booking's (JPY none, " +
        'BHD 3, most 2; two decimals without one); zeros past it are dropped ("1.50000" → "1.50", JPY ' +
        '"5000.00" → "5000")',
      "125.00",
    ),
    currency: str(
      8,
      "An active ISO 4217 currency code in capitals (not usd, not XAU/XTS or other metal, fund or testing codes): else 400 naming fees[i].currency",
      "USD",
    ),
    vehType: str(50),
    passengerCount: str(10, "On a quote option: the vehicle's passenger capacity"),
    luggageCount: str(10, "On a quote option: the vehicle's luggage capacity; omitted when unknown"),
    images: t.Optional(t.Array(t.String({ maxLength: 2048 }), { maxItems: MAX_IMAGES })),
    validUntil: str(64, "On a quote option: ISO 8601 UTC date-time until which it can be booked"),
    percent: numberOrText(16, "GNet: a percentage (e.g. gratuity), 0–100", "20"),
    reimbursable: flag("GNet: whether the amount is reimbursed"),
  },
  open("A fee line; on a QUOTE, one vehicle option."),
);

const Affiliate = t.Object(
  {
    requesterId: str(64, "Your netid (must be the caller's company)", "BOOKWELL"),
    requesterResNo: str(100, "Your reservation number; required on NEW; with requesterId it identifies the booking", "BW-883120"),
    providerId: str(64, "netid of the operator that runs the trip; required on NEW", "ACME-LIMO"),
    providerResNo: str(
      100,
      "Only the provider sets its reservation number: a number you send here is kept as your own member, shown " +
        "under `affiliateReservation.requesterExtra.providerResNo`, and never becomes the booking's " +
        "providerResNo/targetResNo",
    ),
    action: str(16, "NEW, UPDATE or CANCEL", "NEW"),
    notes: str(4000),
    status: str(32, "Ignored: the exchange sets the status (GNet clients send BOOKING_REQUEST)"),
  },
  open(),
);

export const SendTripBody = t.Object(
  {
    reservationType: str(16, "REGULAR (default), ONDEMAND (booked like REGULAR; the type is kept) or QUOTE", "REGULAR"),
    runType: str(50, "e.g. Airport"),
    reservationDate: str(64, "An ISO 8601 date-time or a bare UTC offset such as -08:00 (as GNet sends it); kept as sent", "2026-11-20T14:05:00-05:00"),
    passengerCount: numberOrText(10, "A whole number ≥ 1 (string or number); required on NEW", "3"),
    luggageCount: numberOrText(
      10,
      "Pieces of luggage, a whole number ≥ 0 (string or number). Optional; missing, null or empty means not " + "specified (never 0).",
      "4",
    ),
    preferredVehicleType: str(50, "e.g. SPRINTER"),
    extras: t.Optional(
      t.Array(t.Unknown(), {
        maxItems: 20,
        description:
          "Extras the trip asks: [{code, quantity}] (quantity 1–100, default 1), e.g. CHILD_SEAT, MEET_AND_GREET; priced from the " +
          "provider's rate card. A provider whose card does not offer one (or fewer than asked) is left out of a quote " +
          "(warning EXTRA_NOT_OFFERED). GNet's pickup meetAndGreet \"True\" asks MEET_AND_GREET.",
        examples: [[{ code: "CHILD_SEAT", quantity: 1 }]],
      }),
    ),
    specialInstructions: str(4000),
    locations: t.Optional(
      t.Object(
        {
          pickup: t.Optional(Location),
          dropOff: t.Optional(Location),
          stops: t.Optional(
            t.Array(Stop, {
              maxItems: MAX_STOPS,
              description: `Intermediate stops, at most ${MAX_STOPS}, each with an address`,
              error: `at most ${MAX_STOPS} stops`,
            }),
          ),
        },
        open(),
      ),
    ),
    passengers: t.Optional(
      t.Array(PassengerSchema, {
        maxItems: MAX_PASSENGERS,
        description: `1–${MAX_PASSENGERS} passengers; NEW needs at least one with firstName and lastName`,
        error: `at most ${MAX_PASSENGERS} passengers`,
      }),
    ),
    account: t.Optional(AccountSchema),
    fees: t.Optional(
      t.Array(FeeSchema, {
        maxItems: MAX_FEES,
        description:
          `At most ${MAX_FEES}. Each \`fee\` in the minor unit of the currency the lines name (a line naming its ` +
          `own currency takes that one), else on an UPDATE the booking's, else two decimals: JPY 5000 is kept as ` +
          `"5000", BHD 12.5 as "12.500", USD 75 as "75.00". More significant decimals than the currency has are ` +
          `400 naming each field ("fees[0].fee has 1 decimal; JPY has none"), and nothing is stored`,
        error: `at most ${MAX_FEES} fee lines`,
      }),
    ),
    notes: t.Optional(
      t.Array(Note, {
        maxItems: MAX_NOTES,
        description: `GNet trip notes, at most ${MAX_NOTES}: for the provider's office (AFFILIATE) or the chauffeur (DRIVER)`,
        error: `at most ${MAX_NOTES} notes`,
      }),
    ),
    namesignInstructions: str(500, "What the chauffeur's name sign says", "Ms. Hopper - Harbour Gala"),
    eventName: str(250),
    sourceVendor: str(100),
    origination: str(100, "e.g. web, app"),
    totalTripDuration: numberOrText(
      16,
      "Booked duration in minutes, at most 1440 (24 h: more is 400 naming totalTripDuration; string or number; empty = " +
        "not specified); an hourly quote is priced on it instead of the distance, and a booked vehicle is held for it",
      "180",
    ),
    affiliateReservation: t.Optional(Affiliate),
    transactionId: str(64, "UPDATE/CANCEL: the booking's transactionId (or name it by requesterResNo). Ignored on NEW: the exchange assigns it."),
    submitMode: str(
      16,
      "ASYNC (default) or WAIT: wait (at most 12 s) for the provider's answer — its delivery endpoint's reply, or " +
        "the first update of a provider working on the exchange that sets its reservation number — and answer its " +
        "reservationId, totalAmount and fees",
    ),
    status: str(32, "Ignored: the exchange sets the status"),
    quoteId: str(
      64,
      "A network quote of yours (POST /api/quotes): a NEW REGULAR to one of its providers with `fees:[{code}]` " +
        "books that provider's option at the quoted price (the option becomes the only fee line, its fee the " +
        "totalAmount). The trip's locations, passengerCount, luggageCount and totalTripDuration must be the quoted " +
        "ones (else 400 naming quoteId); an option the quote does not have from this provider: 400 naming " +
        "fees[0].code; someone else's or an unknown quote: 404 QUOTE_NOT_FOUND; after its validUntil: 409 " +
        "QUOTE_EXPIRED.",
      "0193f1c2-6a3e-7b41-9d2c-5e8f0a1b2c3d",
    ),
    acceptWithinMinutes: ACCEPT_WITHIN_MINUTES,
    fallback: FALLBACK,
  },
  {
    additionalProperties: true,
    description:
      "The reservation itself: tripPacket fields at the top level plus affiliateReservation, in GNet's reservation " +
      "model. NEW needs requesterResNo, providerId, passengerCount, ≥ 1 passenger with first and last name and " +
      "locations.pickup.time. UPDATE sends only the fields to change. `null` on any optional field means absent. " +
      "Members no schema names are kept verbatim: stored, shown in the booking and delivered to the provider. A " +
      "NEW repeating (requesterId, requesterResNo) with the same content answers the same transactionId; with " +
      "different content it is 409 — except a REGULAR or ONDEMAND resubmission of a QUOTE, which converts it.",
    examples: [sendTripNew, sendTripQuote, sendTripGnet],
  },
);

export const FeeOut = t.Object(
  {
    type: t.Optional(t.String()),
    code: t.Optional(t.String()),
    name: t.Optional(t.String()),
    description: t.Optional(t.String()),
    fee: t.Optional(t.String()),
    currency: t.Optional(t.String()),
    vehType: t.Optional(t.String()),
    passengerCount: t.Optional(t.String()),
    luggageCount: t.Optional(t.String()),
    images: t.Optional(t.Array(t.String())),
    validUntil: t.Optional(t.String()),
    percent: t.Optional(t.Union([t.String(), t.Number()])),
    reimbursable: t.Optional(t.Union([t.String(), t.Boolean()])),
    amount: t.Optional(
      t.String({ description: 'A late cancel\'s line {type: "CANCELLATION", code: "CANCELLATION_FEE"}: the fee charged (as `fee`)', examples: ["60.00"] }),
    ),
    terms: t.Optional(TermsOut),
    breakdown: t.Optional(Breakdown),
  },
  open(),
);

/** A warning in sendTrip's answer and in the booking it made (status 200: the request was taken). */
export const TripWarningOut = t.Object(
  {
    code: t.Union(
      [
        t.Literal("PICKUP_NOT_LOCATED"),
        t.Literal("NO_VEHICLE_NEAR_PICKUP"),
        t.Literal("NO_VEHICLE_FITS_TRIP"),
        t.Literal("OTHER_CURRENCIES_LEFT_OUT"),
        t.Literal("VEHICLES_BUSY"),
        t.Literal("SHORT_NOTICE"),
        t.Literal("PICKUP_CITY_AMBIGUOUS"),
        t.Literal("PICKUP_TIME_ADJUSTED"),
        t.Literal("DROPOFF_APPROXIMATE"),
        t.Literal("DROPOFF_NOT_LOCATED"),
        t.Literal("UNKNOWN_PASSENGER_FIELD"),
        t.Literal("EXTRA_NOT_OFFERED"),
        t.Literal("UNPRICED_VEHICLES"),
        t.Literal("TRIP_TOO_LONG"),
        t.Literal("CANCELLATION_FEE_APPLIES"),
        t.Literal("PICKUP_MOVED_SHORT_NOTICE"),
      ],
      {
        description:
          "PICKUP_NOT_LOCATED: a REGULAR/ONDEMAND booking whose pickup could not be placed (no lat/lon, unknown " +
          "airport code, unknown city): booked all the same, the provider dispatches from the address. " +
          "PICKUP_CITY_AMBIGUOUS: the pickup's city (without state, or state and country) matches other places of a " +
          "similar size; the most populous was chosen, and `city` names it (`Springfield, MO, US`). " +
          "PICKUP_TIME_ADJUSTED: the pickup's wall-clock time does not exist in its zone (the spring clock change " +
          "skips it): read as moved forward by the gap (02:30 → 03:30 in New York); `message` says what was sent and " +
          "what is used (a NEW, or an UPDATE moving the pickup there, which replaces the booking's). A time the " +
          "autumn change repeats is its earlier instant, without a warning. " +
          "DROPOFF_APPROXIMATE: the drop-off or a stop (`field`) was placed at its city's centre (`city`): no " +
          "coordinates, no airport, and its address not found by the geocoder (or none configured); routes and distance " +
          "rules priced it from there, and the price may change when exact coordinates come (an UPDATE re-prices a " +
          "booking made from a quote). DROPOFF_NOT_LOCATED: a QUOTE whose drop-off or stop (`field`) nothing could " +
          "place: priced by the rules that need no drop-off (docs/places.md#drop-offs-and-stops). " +
          "NO_VEHICLE_NEAR_PICKUP: a QUOTE none of the provider's active vehicles serves (none lists the pickup " +
          "airport or stands within its serviceRadiusKm): stored and delivered with no options. " +
          "NO_VEHICLE_FITS_TRIP: serving vehicles exist but none seats the passengers and luggage. " +
          "OTHER_CURRENCIES_LEFT_OUT: options priced in other currencies than the quote's were left out (`count`, " +
          "`currencies`). VEHICLES_BUSY: vehicles held by live bookings or blackouts at that time were left out " +
          "(`count`). SHORT_NOTICE: the pickup is sooner than the provider's minimumNoticeMinutes: no options. " +
          "PICKUP_MOVED_SHORT_NOTICE: a flight status moved the pickup to less than 15 minutes from the move " +
          "(docs/flights.md#the-pickup-follows-the-flight). " +
          "UNKNOWN_PASSENGER_FIELD: a passenger member GNet does not know (`phone` for `phoneNumber`), named in " +
          "`field` (`passengers[0].phone`): kept as sent, read by no provider. " +
          "EXTRA_NOT_OFFERED: the provider cannot supply an asked extra (its rate card lacks it, or offers fewer; " +
          "`codes`, `count` vehicles): no options. UNPRICED_VEHICLES: vehicles no rate prices were left out (`count`): " +
          "no rule of the provider's rate card prices them (or one prices them at 0) and their own minimum_rate and " +
          "hourly_rate are 0 — a base of 0 is never offered, whatever the surcharges, minimum fare and extras would add " +
          "(docs/rates.md#how-a-vehicle-is-priced). TRIP_TOO_LONG: the trip's road distance (great circle × 1.3, " +
          "through the stops) is beyond the provider's maxTripKm (default 800 km): no options (`count` vehicles). " +
          "CANCELLATION_FEE_APPLIES: options already past their free cancellation (`count`): booked now, cancelling costs a fee once the provider accepts.",
      },
    ),
    message: t.String(),
    field: t.Optional(t.String({ description: "The request field the warning is about", examples: ["locations.pickup"] })),
    count: t.Optional(t.Number({ description: "OTHER_CURRENCIES_LEFT_OUT: how many options were left out" })),
    currencies: t.Optional(t.Array(t.String(), { description: "OTHER_CURRENCIES_LEFT_OUT: their currencies" })),
    city: t.Optional(
      t.String({
        description: "PICKUP_CITY_AMBIGUOUS: the place chosen; DROPOFF_APPROXIMATE: the city whose centre it is (name, state, country)",
        examples: ["Springfield, MO, US"],
      }),
    ),
    codes: t.Optional(t.Array(t.String(), { description: "EXTRA_NOT_OFFERED: the extras' codes" })),
  },
  { description: "What the request was warned about" },
);

export const SendTripResponse = t.Object(
  {
    success: t.Literal(true),
    transactionId: t.String({ format: "uuid" }),
    status: t.String({ description: "QUOTE for a quote, BOOKING_REQUEST for a new booking, else the booking's current status" }),
    fees: t.Array(FeeOut, {
      description:
        "On a QUOTE: the vehicle options — the provider's active vehicles serving the pickup (listing its airport " +
        "or within the provider's serviceRadiusKm of it) that seat the passengers and luggage, all in one currency " +
        "(the pickup country's when the provider prices serving vehicles in it, else the one most of them use), " +
        '`fee` in that currency\'s minor unit (JPY "5000", USD "125.00", BHD "12.500"), cheapest first (at ' +
        "most 20)",
    }),
    totalAmount: t.Union([t.String(), t.Null()], {
      description:
        "QUOTE: the first option's fee (null without options); booking: the chosen option's fee or the provider's " + "latest totalAmount; null while unknown",
    }),
    warnings: t.Array(TripWarningOut, {
      description: "What this request was warned about; empty when nothing. Kept on the booking: reads show them as " + "`data.warnings`.",
    }),
    reservationId: t.Optional(
      t.String({
        description:
          "submitMode WAIT only: the provider's reservation number, when one arrived within the wait (at most 12 s): " +
          "in its delivery endpoint's reply, or — a provider working on the exchange itself, the sandbox included — " +
          "from its first update that sets providerResNo",
      }),
    ),
    deliveryError: t.Optional(
      t.String({
        description:
          "submitMode WAIT only: why the first delivery attempt failed (e.g. the partner answered success: false " +
          "with its message); it is retried on the usual schedule",
      }),
    ),
  },
  { examples: [quoteResponse] },
);
