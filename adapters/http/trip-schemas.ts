import { t } from "elysia";
import sendTripNew from "./examples/sendtrip-new.json";
import sendTripQuote from "./examples/sendtrip-quote.json";
import quoteResponse from "./examples/quote-response.json";
import { TRIP_STATUSES } from "../../domain/trips/lifecycle";

// Shapes and size bounds only: the rules (required fields, counts, dates, amounts) run in the domain
// validator so that every failing field is reported at once.
const str = (max: number, description?: string, example?: string) =>
  t.Optional(t.String({ maxLength: max, ...(description ? { description } : {}), ...(example !== undefined ? { examples: [example] } : {}) }));

export const MAX_PASSENGERS = 50;
export const MAX_FEES = 50;
export const MAX_IMAGES = 10;

export const Location = t.Object(
  {
    locationType: str(50, "e.g. airport, address. With `airport` and an IATA code in address or landmark, the pickup time is read in that airport's time zone.", "airport"),
    landmark: str(500),
    lat: str(32, "Decimal latitude as a string", "40.6413"),
    lon: str(32, "Decimal longitude as a string", "-73.7781"),
    address: str(500),
    city: str(200),
    state: str(100),
    zipCode: str(32),
    country: str(64),
    time: str(64, "Pickup: ISO 8601 date-time. Without an offset it is local time of the pickup place.", "2026-12-03T18:45:00"),
    flightInfo: t.Optional(t.Object({ airlineCode: str(16), flightNumber: str(16) })),
  },
  { description: "All strings (lat and lon too, as in the spec). At most 500 characters per text field." },
);

export const PassengerSchema = t.Object({
  firstName: str(100, "Required on NEW"),
  lastName: str(100, "Required on NEW"),
  email: str(254),
  phoneNumber: str(64),
  accountNumber: str(100),
});

export const AccountSchema = t.Object({ accountNumber: str(100), accountName: str(250), callerName: str(200), callerNumber: str(64) });

export const FeeSchema = t.Object(
  {
    type: str(50, "e.g. OTHER", "OTHER"),
    code: str(200, "On a quote option: the option's code (the fleet entry's slug). Send the chosen one as fees[0].code when converting a quote."),
    name: str(250),
    description: str(2000),
    fee: str(32, "Decimal amount, two decimals", "125.00"),
    currency: str(8, "ISO 4217", "USD"),
    vehType: str(50),
    passengerCount: str(10, "On a quote option: the vehicle's passenger capacity"),
    luggageCount: str(10, "On a quote option: the vehicle's luggage capacity; omitted when unknown"),
    images: t.Optional(t.Array(t.String({ maxLength: 2048 }), { maxItems: MAX_IMAGES })),
    validUntil: str(64, "On a quote option: ISO 8601 UTC date-time until which it can be booked"),
  },
  { description: "A fee line; on a QUOTE, one vehicle option." },
);

const Affiliate = t.Object({
  requesterId: str(64, "Your netid (must be the caller's company)", "BOOKWELL"),
  requesterResNo: str(100, "Your reservation number; required on NEW; with requesterId it identifies the booking", "BW-883120"),
  providerId: str(64, "netid of the operator that runs the trip; required on NEW", "ACME-LIMO"),
  providerResNo: str(100, "The provider's reservation number, when known"),
  action: str(16, "NEW, UPDATE or CANCEL", "NEW"),
  notes: str(4000),
});

export const SendTripBody = t.Object(
  {
    reservationType: str(16, "REGULAR (default) or QUOTE", "REGULAR"),
    runType: str(50, "e.g. Airport"),
    reservationDate: str(64, "ISO 8601 date-time"),
    passengerCount: str(10, "A whole number ≥ 1, as a string; required on NEW", "3"),
    luggageCount: t.Optional(
      t.Union([t.String({ maxLength: 10 }), t.Null()], {
        description: "Pieces of luggage, a whole number ≥ 0 as a string. Optional; missing, null or empty means not specified (never 0).",
        examples: ["4"],
      }),
    ),
    preferredVehicleType: str(50, "e.g. SPRINTER"),
    specialInstructions: str(4000),
    locations: t.Optional(t.Object({ pickup: t.Optional(Location), dropOff: t.Optional(Location) })),
    passengers: t.Optional(t.Array(PassengerSchema, { maxItems: MAX_PASSENGERS, description: `1–${MAX_PASSENGERS} passengers; NEW needs at least one with firstName and lastName` })),
    account: t.Optional(AccountSchema),
    fees: t.Optional(t.Array(FeeSchema, { maxItems: MAX_FEES, description: `At most ${MAX_FEES}` })),
    affiliateReservation: t.Optional(Affiliate),
    transactionId: str(64, "UPDATE/CANCEL: the booking's transactionId (or name it by requesterResNo). Ignored on NEW: the exchange assigns it."),
    submitMode: str(16, "ASYNC (default) or WAIT"),
  },
  {
    description:
      "The reservation itself: tripPacket fields at the top level plus affiliateReservation. NEW needs requesterResNo, providerId, passengerCount, ≥ 1 passenger with first and last name and locations.pickup.time. UPDATE sends only the fields to change. A NEW repeating (requesterId, requesterResNo) with the same content answers the same transactionId; with different content it is 409 — except a REGULAR resubmission of a QUOTE, which converts it.",
    examples: [sendTripNew, sendTripQuote],
  },
);

const FeeOut = t.Object({
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
});

export const SendTripResponse = t.Object(
  {
    success: t.Literal(true),
    transactionId: t.String({ format: "uuid" }),
    status: t.String({ description: "QUOTE for a quote, BOOKING_REQUEST for a new booking, else the booking's current status" }),
    fees: t.Array(FeeOut, { description: "On a QUOTE: the vehicle options, cheapest first (at most 20)" }),
    totalAmount: t.Union([t.String(), t.Null()], { description: "QUOTE: the cheapest option's fee; booking: the chosen option's fee or the provider's latest totalAmount; null while unknown" }),
    reservationId: t.Optional(
      t.String({ description: "submitMode WAIT only: the provider's reservation number, when its delivery endpoint answered one within the wait (at most 12 s)" }),
    ),
  },
  { examples: [quoteResponse] },
);

const VehicleSchema = t.Object({ vehType: str(50), make: str(100), model: str(100), color: str(50), licensePlate: str(32), description: str(500) });
const ChauffeurSchema = t.Object({ firstName: str(100), lastName: str(100), phoneNumber: str(64), chauffeurId: str(100) });

export const ProviderUpdateBody = t.Object(
  {
    status: t.String({ maxLength: 32, description: `The new status: ${TRIP_STATUSES.join(", ")}; legacy ENROUTE, AT_LOCATION, ACCEPTED accepted`, examples: ["CONFIRMED"] }),
    providerResNo: str(100, "Your reservation number; shown as targetResNo"),
    providerNote: str(4000),
    totalAmount: str(32, "Decimal amount", "240.00"),
    fees: t.Optional(t.Array(FeeSchema, { maxItems: MAX_FEES })),
    vehicle: t.Optional(VehicleSchema),
    chauffeur: t.Optional(ChauffeurSchema),
  },
  { examples: [{ status: "CONFIRMED", providerResNo: "AC-55102", totalAmount: "240.00" }] },
);

const LocationOut = t.Object({
  locationType: t.Optional(t.String()),
  landmark: t.Optional(t.String()),
  lat: t.Optional(t.String()),
  lon: t.Optional(t.String()),
  address: t.Optional(t.String()),
  city: t.Optional(t.String()),
  state: t.Optional(t.String()),
  zipCode: t.Optional(t.String()),
  country: t.Optional(t.String()),
  time: t.Optional(t.String()),
  flightInfo: t.Optional(t.Object({ airlineCode: t.Optional(t.String()), flightNumber: t.Optional(t.String()) })),
});

const o = () => t.Optional(t.String());

export const BookingData = t.Object({
  transactionId: t.String({ format: "uuid" }),
  fromConextId: t.String({ description: "The requester's netid" }),
  toConextId: t.String({ description: "The provider's netid" }),
  timestamp: t.Number({ description: "Last change, Unix seconds" }),
  userid: t.String({ description: "uid of the user who submitted the trip" }),
  sourcePlatform: t.String({ examples: ["API"] }),
  targetPlatform: t.String({ examples: ["TRIPSWITCH"] }),
  sourceResNo: t.Union([t.String(), t.Null()], { description: "requesterResNo" }),
  targetResNo: t.Union([t.String(), t.Null()], { description: "providerResNo; null until known" }),
  lastStatus: t.String({ examples: ["BOOKING_REQUEST"] }),
  submitDate: t.Number({ description: "Unix seconds" }),
  pickupDate: t.Number({ description: "Unix seconds; a pickup time without offset is read in the pickup place's time zone" }),
  tripPacket: t.Object({
    reservationType: t.String({ examples: ["REGULAR"] }),
    runType: t.String(),
    reservationDate: t.String(),
    passengerCount: t.String(),
    luggageCount: t.Optional(t.String({ description: "Only when specified" })),
    preferredVehicleType: t.String(),
    specialInstructions: t.String(),
    status: t.String(),
    resStatus: t.String({ description: "Human label, e.g. Pending" }),
    locations: t.Object({ pickup: LocationOut, dropOff: t.Optional(LocationOut) }),
    passengers: t.Array(t.Object({ firstName: o(), lastName: o(), email: o(), phoneNumber: o(), accountNumber: o() })),
    affiliateReservation: t.Object({
      requesterId: t.String(),
      requesterResNo: t.String(),
      providerId: t.String(),
      providerResNo: t.Optional(t.String()),
      action: t.String(),
      status: t.String(),
      notes: t.String(),
      providerNote: t.Optional(t.String()),
    }),
    transactionErrors: t.Array(t.Object({ timestamp: t.String(), errCode: t.String(), errDesc: t.String() })),
    changeLogs: t.Array(t.Object({ timestamp: t.String(), changeSource: t.String(), changeDesc: t.String() })),
    account: t.Object({ accountNumber: o(), accountName: o(), callerName: o(), callerNumber: o() }),
    fees: t.Array(FeeOut, { description: "On a QUOTE: the vehicle options" }),
    totalAmount: t.Union([t.String(), t.Null()]),
    vehicle: t.Optional(t.Object({ vehType: o(), make: o(), model: o(), color: o(), licensePlate: o(), description: o() })),
    chauffeur: t.Optional(t.Object({ firstName: o(), lastName: o(), phoneNumber: o(), chauffeurId: o() })),
  }),
});

export const BookingResponse = t.Object({ success: t.Literal(true), data: BookingData });

export const TransactionIdParams = t.Object({ transactionId: t.String({ maxLength: 64, description: "The booking's transactionId (UUID)" }) });

export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(
    t.String({ description: "Optional, ≤ 255 characters: the first result is stored for 24 h (per company) and replayed for the same key; the same key with a different body is 409 IDEMPOTENCY_KEY_REUSED; while the first request with the key still runs, another is 409 IDEMPOTENCY_IN_PROGRESS (retry later)." }),
  ),
});
