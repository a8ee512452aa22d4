import { fareCurrencyProblem } from "../currency";
import { amountParts, normaliseTripAmount } from "../money";
import { sortKeys } from "../shared/sorted-keys";
import type { ExtraFields, Fee, Passenger, Phone, TripAccount, TripLocation, TripNote } from "./booking";
import { readCoordinate } from "./places";
import { checkFlightInfo } from "./flights";

/** Reports one failing field; every reader reports all it finds, so a client sees every problem at once. */
export type Fail = (field: string, message: string) => void;

type Json = Record<string, unknown>;

/** Text fields of a place that are trimmed; every other field of it is kept as sent. */
const LOCATION_TEXT = [
  "address",
  "address1",
  "address2",
  "city",
  "country",
  "landmark",
  "locationType",
  "pointOnLocation",
  "specialInstructions",
  "state",
  "time",
  "zipCode",
] as const;
const PASSENGER_TEXT = ["accountNumber", "email", "firstName", "lastName", "phoneNumber"] as const;
const ACCOUNT_TEXT = ["accountName", "accountNumber", "callerEmail", "callerName", "callerNumber"] as const;
const FEE_TEXT = ["code", "currency", "description", "fee", "luggageCount", "name", "passengerCount", "type", "validUntil", "vehType"] as const;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/**
 * A copy of `o` with its keys in sorted order (the order the content fingerprint's canonical JSON wants, so it does
 * not copy these objects again) and the named text fields trimmed. Every other member is kept verbatim.
 */
export function copyTrimming<T extends object>(o: T, text: readonly string[]): T {
  const record = o as Json;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (!sorted) sortKeys(keys);
  const out: Json = {};
  for (const key of keys) {
    const v = record[key];
    out[key] = typeof v === "string" && text.includes(key) ? v.trim() : v;
  }
  return out as T;
}

/**
 * A JSON number or string as the decimal text stored for it. Numbers that JavaScript would print with an exponent
 * (1e-7) are written out in full, so the text always parses back as the same decimal.
 */
export function numberText(v: string | number): string {
  if (typeof v === "string") return v.trim();
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(12).replace(/0+$/, "").replace(/\.$/, "") : s;
}

/**
 * lat or lon as GNet sends it — a string, a number or null — as the string the spec stores. Empty means absent;
 * anything else that is not a decimal within ±limit fails.
 */
export function readCoordinateField(raw: unknown, limit: 90 | 180, field: string, fail: Fail): string | undefined {
  if (blank(raw)) return undefined;
  if (typeof raw !== "string" && typeof raw !== "number") {
    fail(field, coordinateMessage(limit));
    return undefined;
  }
  const text = numberText(raw);
  if (readCoordinate(text, limit) === undefined) {
    fail(field, coordinateMessage(limit));
    return undefined;
  }
  return text;
}

const coordinateMessage = (limit: 90 | 180) =>
  limit === 90 ? "must be a decimal latitude between -90 and 90" : "must be a decimal longitude between -180 and 180";

/**
 * A place of the trip (pickup, drop-off or stop): text trimmed, lat/lon stored as strings, GNet's extra fields and
 * any unnamed field kept. `stop` adds the stop rules: an address is required, stopNumber is a whole number.
 */
export function readLocation(raw: Json, field: string, fail: Fail, kind: "pickup" | "dropOff" | "stop"): TripLocation {
  const out = copyTrimming(raw, LOCATION_TEXT) as TripLocation;
  for (const [key, limit] of [
    ["lat", 90],
    ["lon", 180],
  ] as const) {
    const text = readCoordinateField(raw[key], limit, `${field}.${key}`, fail);
    if (text === undefined) delete out[key];
    else out[key] = text;
  }
  // A pickup's flight is checked (docs/flights.md#flights): the pickup follows it; elsewhere it is kept as sent.
  if (isObject(raw.flightInfo))
    out.flightInfo =
      kind === "pickup" ? checkFlightInfo(raw.flightInfo, `${field}.flightInfo`, fail) : copyTrimming(raw.flightInfo, ["airlineCode", "flightNumber"]);
  for (const flag of ["meetAndGreet", "FBO"] as const) {
    const v = raw[flag];
    if (typeof v === "string") out[flag] = v.trim();
  }
  if (kind === "stop") {
    if (blank(raw.address)) fail(`${field}.address`, "is required: every stop needs an address");
    if (raw.stopNumber !== undefined && !blank(raw.stopNumber)) {
      const n = typeof raw.stopNumber === "number" ? raw.stopNumber : Number(String(raw.stopNumber).trim());
      if (!Number.isInteger(n) || n < 1 || n > 999) fail(`${field}.stopNumber`, "must be a whole number from 1 to 999");
    }
  }
  return out;
}

/** The intermediate stops of a trip, in the order sent. */
export function readStops(raw: unknown[], fail: Fail): TripLocation[] {
  return raw.map((stop, i) => readLocation(isObject(stop) ? stop : {}, `locations.stops[${i}]`, fail, "stop"));
}

export function readPhones(raw: unknown[], field: string, fail: Fail): Phone[] {
  return raw.map((phone, i) => {
    const p = isObject(phone) ? phone : {};
    if (blank(p.number)) fail(`${field}[${i}].number`, "is required");
    return copyTrimming(p, ["number", "type"]) as Phone;
  });
}

/** Passengers: names and contact trimmed, `phones[]` checked (each needs a number), other fields kept. */
export function readPassengers(raw: unknown[], fail: Fail, requireNames: boolean): Passenger[] {
  if (requireNames && raw.length === 0) fail("passengers", "needs at least one passenger with firstName and lastName");
  return raw.map((passenger, i) => {
    const p = isObject(passenger) ? passenger : {};
    if (requireNames && blank(p.firstName)) fail(`passengers[${i}].firstName`, "is required");
    if (requireNames && blank(p.lastName)) fail(`passengers[${i}].lastName`, "is required");
    const out = copyTrimming(p, PASSENGER_TEXT) as Passenger;
    if (Array.isArray(p.phones)) out.phones = readPhones(p.phones, `passengers[${i}].phones`, fail);
    return out;
  });
}

export function readAccount(raw: Json): TripAccount {
  return copyTrimming(raw, ACCOUNT_TEXT) as TripAccount;
}

/** Trip notes (GNet's `notes[]`): a message for the provider's office (AFFILIATE) or the chauffeur (DRIVER). */
export function readNotes(raw: unknown[], fail: Fail): TripNote[] {
  return raw.map((note, i) => {
    const n = isObject(note) ? note : {};
    if (blank(n.message)) fail(`notes[${i}].message`, "is required");
    const context = typeof n.context === "string" ? n.context.trim().toUpperCase() : "";
    if (context !== "AFFILIATE" && context !== "DRIVER") fail(`notes[${i}].context`, "must be AFFILIATE or DRIVER");
    return { ...copyTrimming(n, ["message"]), context } as TripNote;
  });
}

/** A booked duration is at most 24 h (docs/availability.md#hold-limits): longer hires are contracts between partners. */
export const MAX_TRIP_MINUTES = 1440;

/**
 * totalTripDuration in minutes, as sent (string or number; "" = not specified). Returns the minutes when given,
 * and fails when it is not a number of minutes from 0 to 24 h.
 */
export function readTripMinutes(raw: unknown, fail: Fail): number | undefined {
  if (blank(raw)) return undefined;
  const text = typeof raw === "number" ? numberText(raw) : typeof raw === "string" ? raw.trim() : "";
  const minutes = /^\d{1,5}(\.\d{1,2})?$/.test(text) ? Number(text) : NaN;
  if (!(minutes >= 0 && minutes <= MAX_TRIP_MINUTES)) {
    fail("totalTripDuration", `must be a number of minutes from 0 to ${MAX_TRIP_MINUTES} (24 h)`);
    return undefined;
  }
  return minutes;
}

/** How a fee line's `fee` is read: the text kept for it (undefined when refused) and the message of a refusal. */
export interface FeeAmountRule {
  read: (text: string) => string | undefined;
  message: string;
}

/** Two decimals (a requester's fees): "1.50000" → "1.50". */
const TWO_DECIMALS: FeeAmountRule = { read: normaliseTripAmount, message: "must be a decimal amount of at most 2 significant decimals, e.g. 125.00" };

/**
 * Any decimal amount, kept as sent (trimmed): for amounts put in the booking's currency's minor unit once the
 * booking is known (domain/trips/booking-amounts.ts).
 */
export const ANY_DECIMALS: FeeAmountRule = { read: (text) => (amountParts(text) ? text.trim() : undefined), message: "must be a decimal amount, e.g. 125.00" };

/**
 * Fee lines: text trimmed; `fee` a decimal amount (a JSON number or string) read by `amounts` (by default two
 * decimals: trailing zeros beyond the cents are accepted, "1.50000" → "1.50"); GNet's `percent` a number from 0 to 100; `reimbursable` and other fields kept.
 */
export function checkFees(fees: unknown[], field: string, fail: Fail, amounts: FeeAmountRule = TWO_DECIMALS): Fee[] {
  return fees.map((raw, i) => {
    const f = isObject(raw) ? raw : {};
    const fee = copyTrimming(f, FEE_TEXT) as Fee;
    if (typeof f.fee === "number") fee.fee = numberText(f.fee);
    if (fee.fee !== undefined && fee.fee !== "") {
      const amount = amounts.read(fee.fee);
      if (amount === undefined) fail(`${field}[${i}].fee`, amounts.message);
      else fee.fee = amount;
    }
    if (fee.currency !== undefined && fee.currency !== "") {
      const problem = fareCurrencyProblem(fee.currency);
      if (problem) fail(`${field}[${i}].currency`, problem);
    }
    if (Array.isArray(f.images)) fee.images = f.images.map((url) => (typeof url === "string" ? url.trim() : url)) as string[];
    if (!blank(f.percent)) {
      const text = typeof f.percent === "number" || typeof f.percent === "string" ? numberText(f.percent) : "";
      const pct = /^\d{1,3}(\.\d{1,4})?$/.test(text) ? Number(text) : NaN;
      if (!(pct >= 0 && pct <= 100)) fail(`${field}[${i}].percent`, "must be a number from 0 to 100");
    }
    return fee;
  });
}

/** The members of `raw` whose names are not in `known`, verbatim; undefined when there are none. */
export function extraFields(raw: Json, known: ReadonlySet<string>): ExtraFields | undefined {
  let extra: ExtraFields | undefined;
  for (const key of Object.keys(raw)) if (!known.has(key)) (extra ??= {})[key] = raw[key];
  return extra;
}
