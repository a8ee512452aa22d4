import type { FieldError } from "../errors";
import { TRIP_MEMBERS, type ExtraFields, type Fallback, type ReservationType, type Trip, type TripAccount } from "./booking";
import { readLuggageCount, readPassengerCount } from "./luggage";
import { parseDateTime } from "./places";
import { exactAmountsInCurrency, type MinorUnits } from "./booking-amounts";
import {
  ANY_DECIMALS,
  checkFees,
  extraFields,
  numberText,
  readAccount,
  readLocation,
  readNotes,
  readPassengers,
  readStops,
  readTripMinutes,
  type Fail,
} from "./trip-fields";

type Json = Record<string, unknown>;
/** A count or amount as GNet clients send it: a string or a JSON number. */
type WireNumber = string | number;

/**
 * A sendTrip body as received: shapes and sizes already checked at the edge (nulls of optional fields removed
 * there), rules not yet. Members not named here are kept verbatim.
 */
export interface SendTripInput {
  reservationType?: string;
  runType?: string;
  reservationDate?: string;
  passengerCount?: WireNumber;
  luggageCount?: WireNumber | null;
  preferredVehicleType?: string;
  specialInstructions?: string;
  locations?: { pickup?: Json; dropOff?: Json; stops?: unknown[]; [field: string]: unknown };
  passengers?: unknown[];
  account?: TripAccount;
  fees?: unknown[];
  notes?: unknown[];
  namesignInstructions?: string;
  eventName?: string;
  sourceVendor?: string;
  origination?: string;
  totalTripDuration?: WireNumber;
  affiliateReservation?: {
    requesterId?: string;
    requesterResNo?: string;
    providerId?: string;
    action?: string;
    notes?: string;
    [field: string]: unknown;
  };
  transactionId?: string;
  submitMode?: string;
  /** A network quote whose option (named by `fees[0].code`) this NEW books. */
  quoteId?: string;
  [field: string]: unknown;
}

/** Top-level members with a meaning of their own; every other member is an extra field, kept verbatim. */
const KNOWN_TOP: ReadonlySet<string> = new Set([
  ...TRIP_MEMBERS,
  "affiliateReservation",
  "transactionId",
  "submitMode",
  "quoteId",
  "acceptWithinMinutes",
  "fallback",
  // Set by the exchange, never by the sender (GNet clients echo them): not stored from the request.
  "status",
  "resStatus",
]);
/**
 * affiliateReservation members with a meaning of their own (`status` is the exchange's). `providerResNo` is not
 * one: only the provider sets its number, so a requester's copy is kept as an extra member, never the provider's.
 */
const KNOWN_AFFILIATE: ReadonlySet<string> = new Set(["requesterId", "requesterResNo", "providerId", "action", "notes", "status"]);
const KNOWN_LOCATIONS: ReadonlySet<string> = new Set(["pickup", "dropOff", "stops"]);
const TOP_TEXT = ["runType", "preferredVehicleType", "specialInstructions", "namesignInstructions", "eventName", "sourceVendor", "origination"] as const;

/** How UPDATE and CANCEL name a booking. */
export type BookingRef = { transactionId: string } | { requesterId: string; requesterResNo: string };

export type SubmitMode = "ASYNC" | "WAIT";

interface Common {
  requesterId: string;
  submitMode: SubmitMode;
  notes: string | undefined;
  /** affiliateReservation members no schema names, kept verbatim. */
  affiliateExtra: ExtraFields | undefined;
}

/** A new trip as checked: the trip as stored, and what quotes and the pickup date read of it. */
export interface NewTrip {
  trip: Trip;
  /** Parsed for the quote and the pickup date; the trip holds the strings as stored. */
  passengerCount: number;
  luggageCount: number | undefined;
  /** totalTripDuration in minutes, when given: an hourly quote is priced on it. */
  tripMinutes: number | undefined;
}

export interface NewTripRequest extends Common, NewTrip {
  action: "NEW";
  requesterResNo: string;
  providerId: string;
  /** submitMode as the request sent it (kept with the booking, not part of its content). */
  sentSubmitMode: SubmitMode | undefined;
  /** The network quote whose option this NEW books (lower-case), when it names one. */
  quoteId?: string;
  /** The requester's shorter acceptance window (docs/terms.md#the-acceptance-deadline-acceptby). */
  acceptWithinMinutes?: number;
  /** The cascade's cap (docs/terms.md#the-cascade-fallback), with quoteId only. */
  fallback?: Fallback;
}

/** The trip fields an UPDATE sends; absent fields keep their stored value. */
export type TripChanges = Partial<Omit<Trip, "reservationType">>;

export interface UpdateTripRequest extends Common {
  action: "UPDATE";
  ref: BookingRef;
  providerId: string | undefined;
  changes: TripChanges;
}

export interface CancelTripRequest extends Common {
  action: "CANCEL";
  ref: BookingRef;
}

export type SendTripRequest = NewTripRequest | UpdateTripRequest | CancelTripRequest;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID (any version), the form of every transactionId. */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

const blank = (s: string | undefined | null) => (s ?? "").trim() === "";
const trimmed = (s: string | undefined) => (blank(s) ? undefined : s!.trim());
const countText = (v: WireNumber | null | undefined) => (typeof v === "number" ? numberText(v) : v);

/**
 * Checks a sendTrip body against every sendTrip rule and reports every failing field at once;
 * on success returns the request normalised (trimmed ids, upper-case enums, counts as whole-number strings).
 * With `units` (sendTrip), fee amounts follow docs/integration.md#what-a-quote-offers-service-area-currency-warnings:
 * a NEW's in the currency its fee lines name (two
 * decimals without one); an UPDATE's are read with any decimals, put in the booking's currency once it is read.
 * Without, every fee has two decimals.
 */
export function validateSendTrip(input: SendTripInput, units?: MinorUnits): { ok: true; value: SendTripRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  const ar = input.affiliateReservation ?? {};

  const action = (ar.action ?? "").trim().toUpperCase();
  if (action === "") fail("affiliateReservation.action", "is required: NEW, UPDATE or CANCEL");
  else if (action !== "NEW" && action !== "UPDATE" && action !== "CANCEL") fail("affiliateReservation.action", "must be NEW, UPDATE or CANCEL");

  const requesterId = trimmed(ar.requesterId);
  if (!requesterId) fail("affiliateReservation.requesterId", "is required (your netid)");

  const submitMode = (input.submitMode ?? "").trim().toUpperCase() || "ASYNC";
  if (submitMode !== "ASYNC" && submitMode !== "WAIT") fail("submitMode", "must be WAIT or ASYNC");

  const transactionId = trimmed(input.transactionId);
  if (transactionId && !isUuid(transactionId)) fail("transactionId", "must be a UUID");
  const quoteId = trimmed(input.quoteId);
  if (quoteId !== undefined && !isUuid(quoteId)) fail("quoteId", "must be a network quote's quoteId (a UUID)");
  const offerTerms = checkOfferTerms(input, quoteId !== undefined, fail);

  const isNew = action === "NEW" || action === "";
  const trip = isNew ? checkNewTrip(input, fail, { units }) : undefined;
  const changes = isNew ? undefined : checkTripFields(input, "present", fail, units !== undefined).changes;

  const requesterResNo = trimmed(ar.requesterResNo);
  const providerId = trimmed(ar.providerId);
  if (isNew) {
    if (!requesterResNo) fail("affiliateReservation.requesterResNo", "is required: your own reservation number");
    if (!providerId) fail("affiliateReservation.providerId", "is required: the netid of the operator to send the trip to");
  } else if (!transactionId && !requesterResNo) {
    fail("transactionId", "is required for UPDATE and CANCEL (or send affiliateReservation.requesterResNo)");
  }

  if (errors.length > 0) return { ok: false, errors };

  const common: Common = {
    requesterId: requesterId!,
    submitMode: submitMode as SubmitMode,
    notes: ar.notes?.trim(),
    affiliateExtra: extraFields(ar, KNOWN_AFFILIATE),
  };
  const ref: BookingRef = transactionId ? { transactionId } : { requesterId: requesterId!, requesterResNo: requesterResNo! };
  if (action === "CANCEL") return { ok: true, value: { ...common, action: "CANCEL", ref } };
  if (action === "UPDATE") return { ok: true, value: { ...common, action: "UPDATE", ref, providerId, changes: changes! } };
  return {
    ok: true,
    value: {
      ...common,
      action: "NEW",
      requesterResNo: requesterResNo!,
      providerId: providerId!,
      ...trip!,
      sentSubmitMode: input.submitMode !== undefined ? (submitMode as SubmitMode) : undefined,
      ...(quoteId !== undefined ? { quoteId: quoteId.toLowerCase() } : {}),
      ...offerTerms,
    },
  };
}

/** A decimal amount as a fee cap may be sent: up to 12 digits and 3 decimals, more than 0. */
const MAX_FEE = /^\d{1,12}(\.\d{1,3})?$/;

/**
 * `acceptWithinMinutes` (1–1,440) and `fallback: {maxFee, sameClassOrBetter?}` (a booking from a network quote only) of
 * a NEW, each failing field named.
 */
function checkOfferTerms(input: SendTripInput, fromQuote: boolean, fail: Fail): { acceptWithinMinutes?: number; fallback?: Fallback } {
  const out: { acceptWithinMinutes?: number; fallback?: Fallback } = {};
  const minutes = input.acceptWithinMinutes;
  if (minutes !== undefined && minutes !== null) {
    const n = typeof minutes === "string" && /^\d{1,4}$/.test(minutes.trim()) ? Number(minutes) : minutes;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1440) fail("acceptWithinMinutes", "must be a whole number of minutes from 1 to 1440");
    else out.acceptWithinMinutes = n;
  }
  const fallback = input.fallback;
  if (fallback !== undefined && fallback !== null) {
    const maxFee = typeof fallback === "object" && !Array.isArray(fallback) ? (fallback as { maxFee?: unknown }).maxFee : undefined;
    const text = typeof maxFee === "number" && Number.isFinite(maxFee) ? String(maxFee) : typeof maxFee === "string" ? maxFee.trim() : "";
    const sameClass = typeof fallback === "object" && !Array.isArray(fallback) ? (fallback as { sameClassOrBetter?: unknown }).sameClassOrBetter : undefined;
    if (typeof fallback !== "object" || Array.isArray(fallback)) fail("fallback", "must be an object: {maxFee}");
    else if (!MAX_FEE.test(text) || Number(text) <= 0) fail("fallback.maxFee", "must be an amount more than 0 in the booked option's currency (120.00)");
    else if (sameClass !== undefined && sameClass !== null && typeof sameClass !== "boolean") fail("fallback.sameClassOrBetter", "must be true or false");
    else if (!fromQuote) fail("fallback", "needs quoteId: only a booking made from a network quote has options to fall back on");
    else out.fallback = { maxFee: text, ...(sameClass === true ? { sameClassOrBetter: true } : {}) };
  }
  return out;
}

/**
 * Checks the trip of a NEW — a sendTrip NEW's and a network quote's alike — reporting every failing field through
 * `fail` (what it returns is the trip only when nothing failed). With `units`, fee amounts are read in the currency
 * their lines name (two decimals without one); without, every fee has two decimals. A quote need not name its
 * passengers (`passengersOptional`): those it names are checked.
 */
export function checkNewTrip(input: SendTripInput, fail: Fail, options: { units?: MinorUnits; passengersOptional?: boolean } = {}): NewTrip {
  const { units, passengersOptional = false } = options;
  const checked = checkTripFields(input, "all", fail, units !== undefined, passengersOptional);
  if (units && checked.changes.fees) {
    const exact = exactAmountsInCurrency({ fees: checked.changes.fees }, [], units);
    for (const e of exact.errors) fail(e.field, e.message);
    checked.changes.fees = exact.amounts.fees;
  }
  return {
    trip: { reservationType: checked.reservationType, ...checked.changes } as Trip,
    passengerCount: checked.passengerCount!,
    luggageCount: checked.luggageCount,
    tripMinutes: checked.tripMinutes,
  };
}

interface CheckedTrip {
  reservationType: ReservationType;
  changes: TripChanges;
  passengerCount: number | undefined;
  luggageCount: number | undefined;
  tripMinutes: number | undefined;
}

const RESERVATION_TYPES: readonly string[] = ["REGULAR", "ONDEMAND", "QUOTE"];
const BARE_OFFSET = /^(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Checks the trip fields. `all`: a NEW, where passengerCount, passengers and the pickup time are required;
 * `present`: an UPDATE, where only the fields sent are checked (and changed). Members no schema names are
 * carried in `changes.extra`, verbatim. `anyDecimals`: fee amounts are kept as sent, for the currency's minor unit.
 */
function checkTripFields(input: SendTripInput, mode: "all" | "present", fail: Fail, anyDecimals: boolean, passengersOptional = false): CheckedTrip {
  const changes: TripChanges = {};
  const sent = (v: unknown) => mode === "all" || v !== undefined;

  const type = (input.reservationType ?? "").trim().toUpperCase() || "REGULAR";
  if (!RESERVATION_TYPES.includes(type)) fail("reservationType", "must be REGULAR, ONDEMAND or QUOTE");

  for (const key of TOP_TEXT) {
    if (input[key] !== undefined) changes[key] = input[key]!.trim();
  }
  if (input.reservationDate !== undefined) {
    const date = input.reservationDate.trim();
    if (date !== "" && !BARE_OFFSET.test(date) && !parseDateTime(date))
      fail("reservationDate", "must be an ISO 8601 date-time (2026-11-20T14:05:00-05:00) or a UTC offset (-05:00)");
    changes.reservationDate = date;
  }

  let passengerCount: number | undefined;
  if (sent(input.passengerCount)) {
    const read = readPassengerCount(countText(input.passengerCount));
    if (!read.ok) fail("passengerCount", read.message);
    else {
      passengerCount = read.value;
      changes.passengerCount = String(read.value);
    }
  }

  let luggageCount: number | undefined;
  const luggage = readLuggageCount(countText(input.luggageCount));
  if (!luggage.ok) fail("luggageCount", luggage.message);
  else {
    luggageCount = luggage.value;
    // An UPDATE that sends an empty luggageCount clears it; one that omits the field keeps it.
    if (mode === "all" || input.luggageCount !== undefined) changes.luggageCount = luggage.value === undefined ? undefined : String(luggage.value);
  }
  if (mode === "all" && changes.luggageCount === undefined) delete changes.luggageCount;

  if (sent(input.locations)) {
    const locations = input.locations ?? {};
    const pickup = locations.pickup;
    if (!pickup) fail("locations.pickup", "is required");
    else {
      if (blank(pickup.time as string | undefined)) fail("locations.pickup.time", "is required: an ISO 8601 date-time");
      else if (typeof pickup.time !== "string" || !parseDateTime(pickup.time))
        fail("locations.pickup.time", "must be an ISO 8601 date-time, e.g. 2026-12-03T18:45:00");
    }
    const read = {
      ...extraFields(locations, KNOWN_LOCATIONS),
      pickup: readLocation(pickup ?? {}, "locations.pickup", fail, "pickup"),
      ...(locations.dropOff ? { dropOff: readLocation(locations.dropOff, "locations.dropOff", fail, "dropOff") } : {}),
      ...(locations.stops ? { stops: readStops(locations.stops, fail) } : {}),
    };
    if (pickup) changes.locations = read;
  }

  if (input.passengers !== undefined || (mode === "all" && !passengersOptional)) changes.passengers = readPassengers(input.passengers ?? [], fail, true);
  if (input.account !== undefined) changes.account = readAccount(input.account);
  if (sent(input.fees)) changes.fees = checkFees(input.fees ?? [], "fees", fail, anyDecimals ? ANY_DECIMALS : undefined);
  if (input.notes !== undefined) changes.notes = readNotes(input.notes, fail);
  const tripMinutes = readTripMinutes(input.totalTripDuration, fail);
  if (input.totalTripDuration !== undefined)
    changes.totalTripDuration = typeof input.totalTripDuration === "string" ? input.totalTripDuration.trim() : input.totalTripDuration;
  const extra = extraFields(input, KNOWN_TOP);
  if (extra) changes.extra = extra;

  return { reservationType: type as ReservationType, changes, passengerCount, luggageCount, tripMinutes };
}
