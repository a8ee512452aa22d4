import type { FieldError } from "../errors";
import { normaliseAmount } from "../money";
import type { Fee, Passenger, ReservationType, Trip, TripAccount, TripAction, TripLocation } from "./booking";
import { readLuggageCount, readPassengerCount } from "./luggage";
import { parseDateTime, readCoordinate } from "./places";
import { sortKeys } from "../shared/sorted-keys";

/** A sendTrip body as received: shapes and sizes already checked at the edge, rules not yet. */
export interface SendTripInput {
  reservationType?: string;
  runType?: string;
  reservationDate?: string;
  passengerCount?: string;
  luggageCount?: string | null;
  preferredVehicleType?: string;
  specialInstructions?: string;
  locations?: { pickup?: TripLocation; dropOff?: TripLocation };
  passengers?: Passenger[];
  account?: TripAccount;
  fees?: Fee[];
  affiliateReservation?: {
    requesterId?: string;
    requesterResNo?: string;
    providerId?: string;
    providerResNo?: string;
    action?: string;
    notes?: string;
  };
  transactionId?: string;
  submitMode?: string;
}

/** How UPDATE and CANCEL name a booking. */
export type BookingRef = { transactionId: string } | { requesterId: string; requesterResNo: string };

export type SubmitMode = "ASYNC" | "WAIT";

interface Common {
  requesterId: string;
  submitMode: SubmitMode;
  notes: string | undefined;
}

export interface NewTripRequest extends Common {
  action: "NEW";
  requesterResNo: string;
  providerId: string;
  providerResNo: string | undefined;
  trip: Trip;
  /** Parsed for the quote and the pickup date; the trip holds the strings as stored. */
  passengerCount: number;
  luggageCount: number | undefined;
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

/**
 * Checks a sendTrip body against every rule of CONTRACT §6 and reports every failing field at once;
 * on success returns the request normalised (trimmed ids, upper-case enums, counts as whole-number strings).
 */
export function validateSendTrip(input: SendTripInput): { ok: true; value: SendTripRequest } | { ok: false; errors: FieldError[] } {
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

  const isNew = action === "NEW" || action === "";
  const trip = checkTripFields(input, isNew ? "all" : "present", fail);

  const requesterResNo = trimmed(ar.requesterResNo);
  const providerId = trimmed(ar.providerId);
  if (isNew) {
    if (!requesterResNo) fail("affiliateReservation.requesterResNo", "is required: your own reservation number");
    if (!providerId) fail("affiliateReservation.providerId", "is required: the netid of the operator to send the trip to");
  } else if (!transactionId && !requesterResNo) {
    fail("transactionId", "is required for UPDATE and CANCEL (or send affiliateReservation.requesterResNo)");
  }

  if (errors.length > 0) return { ok: false, errors };

  const common: Common = { requesterId: requesterId!, submitMode: submitMode as SubmitMode, notes: ar.notes?.trim() };
  const ref: BookingRef = transactionId ? { transactionId } : { requesterId: requesterId!, requesterResNo: requesterResNo! };
  if (action === "CANCEL") return { ok: true, value: { ...common, action: "CANCEL", ref } };
  if (action === "UPDATE") return { ok: true, value: { ...common, action: "UPDATE", ref, providerId, changes: trip.changes } };
  return {
    ok: true,
    value: {
      ...common,
      action: "NEW",
      requesterResNo: requesterResNo!,
      providerId: providerId!,
      providerResNo: trimmed(ar.providerResNo),
      trip: { reservationType: trip.reservationType, ...trip.changes } as Trip,
      passengerCount: trip.passengerCount!,
      luggageCount: trip.luggageCount,
    },
  };
}

interface CheckedTrip {
  reservationType: ReservationType;
  changes: TripChanges;
  passengerCount: number | undefined;
  luggageCount: number | undefined;
}

/**
 * Checks the trip fields. `all`: a NEW, where passengerCount, passengers and the pickup time are required;
 * `present`: an UPDATE, where only the fields sent are checked (and changed).
 */
function checkTripFields(input: SendTripInput, mode: "all" | "present", fail: (field: string, message: string) => void): CheckedTrip {
  const changes: TripChanges = {};
  const sent = (v: unknown) => mode === "all" || v !== undefined;

  const type = (input.reservationType ?? "").trim().toUpperCase() || "REGULAR";
  if (type !== "REGULAR" && type !== "QUOTE") fail("reservationType", "must be REGULAR or QUOTE");

  for (const key of ["runType", "preferredVehicleType", "specialInstructions"] as const) {
    if (input[key] !== undefined) changes[key] = input[key]!.trim();
  }
  if (input.reservationDate !== undefined && !blank(input.reservationDate)) {
    if (!parseDateTime(input.reservationDate)) fail("reservationDate", "must be an ISO 8601 date-time, e.g. 2026-11-20T14:05:00-05:00");
  }
  if (input.reservationDate !== undefined) changes.reservationDate = input.reservationDate.trim();

  let passengerCount: number | undefined;
  if (sent(input.passengerCount)) {
    const read = readPassengerCount(input.passengerCount);
    if (!read.ok) fail("passengerCount", read.message);
    else {
      passengerCount = read.value;
      changes.passengerCount = String(read.value);
    }
  }

  let luggageCount: number | undefined;
  const luggage = readLuggageCount(input.luggageCount);
  if (!luggage.ok) fail("luggageCount", luggage.message);
  else {
    luggageCount = luggage.value;
    // An UPDATE that sends an empty luggageCount clears it; one that omits the field keeps it.
    if (mode === "all" || input.luggageCount !== undefined) changes.luggageCount = luggage.value === undefined ? undefined : String(luggage.value);
  }
  if (mode === "all" && changes.luggageCount === undefined) delete changes.luggageCount;

  if (sent(input.locations)) {
    const pickup = input.locations?.pickup;
    if (!pickup) fail("locations.pickup", "is required");
    else {
      if (blank(pickup.time)) fail("locations.pickup.time", "is required: an ISO 8601 date-time");
      else if (!parseDateTime(pickup.time!)) fail("locations.pickup.time", "must be an ISO 8601 date-time, e.g. 2026-12-03T18:45:00");
    }
    checkPosition(pickup, "locations.pickup", fail);
    checkPosition(input.locations?.dropOff, "locations.dropOff", fail);
    if (pickup) changes.locations = { pickup: trimLocation(pickup), ...(input.locations?.dropOff ? { dropOff: trimLocation(input.locations.dropOff) } : {}) };
  }

  if (sent(input.passengers)) {
    const passengers = input.passengers ?? [];
    if (passengers.length === 0) fail("passengers", "needs at least one passenger with firstName and lastName");
    passengers.forEach((p, i) => {
      if (blank(p.firstName)) fail(`passengers[${i}].firstName`, "is required");
      if (blank(p.lastName)) fail(`passengers[${i}].lastName`, "is required");
    });
    changes.passengers = passengers.map((p) => trimStrings(p));
  }

  if (input.account !== undefined) changes.account = trimStrings(input.account);
  if (sent(input.fees)) changes.fees = checkFees(input.fees ?? [], "fees", fail);

  return { reservationType: type as ReservationType, changes, passengerCount, luggageCount };
}

/** Checks fee lines: a `fee` amount, when sent, is a decimal amount (normalised to two decimals). */
export function checkFees(fees: Fee[], field: string, fail: (field: string, message: string) => void): Fee[] {
  return fees.map((f, i) => {
    const fee = trimStrings(f);
    if (fee.fee !== undefined && fee.fee !== "") {
      const amount = normaliseAmount(fee.fee);
      if (amount === undefined) fail(`${field}[${i}].fee`, "must be a decimal amount with at most 2 decimals, e.g. 125.00");
      else fee.fee = amount;
    }
    return fee;
  });
}

function checkPosition(location: TripLocation | undefined, field: string, fail: (field: string, message: string) => void) {
  if (!location) return;
  if (!blank(location.lat) && readCoordinate(location.lat, 90) === undefined) fail(`${field}.lat`, "must be a decimal latitude between -90 and 90");
  if (!blank(location.lon) && readCoordinate(location.lon, 180) === undefined) fail(`${field}.lon`, "must be a decimal longitude between -180 and 180");
}

function trimLocation(location: TripLocation): TripLocation {
  const out = trimStrings(location) as TripLocation;
  if (location.flightInfo) out.flightInfo = trimStrings(location.flightInfo);
  return out;
}

/**
 * A copy with every top-level string trimmed (other values kept). The copy has its keys in sorted order, the order
 * the content fingerprint's canonical JSON wants, so that fingerprint does not copy these objects a second time.
 */
function trimStrings<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  const record = o as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (!sorted) sortKeys(keys);
  for (let i = 0; i < keys.length; i++) {
    const v = record[keys[i]];
    out[keys[i]] = typeof v === "string" ? v.trim() : Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x.trim() : x)) : v;
  }
  return out as T;
}
