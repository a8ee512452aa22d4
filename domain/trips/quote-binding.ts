import { ConflictError, type FieldError } from "../errors";
import { canonicalJson } from "../shared/canonical-json";
import type { Booking, ExtraFields, Fee, Trip, TripLocation, TripLocations } from "./booking";
import type { BookingWrite } from "./decision";
import { distanceKm, parseDateTime, readCoordinate } from "./places";

/**
 * The price is bound to the trip it was quoted for (docs/integration.md#the-price-is-bound-to-the-trip): which fields of a trip its price depends on,
 * and how two versions of a trip differ in them. Pure: booking a quote (a QUOTE resubmitted as REGULAR, a network
 * quote's option) compares the trip asked with the trip quoted; a requester's UPDATE of a booking made from a quote
 * compares the trip before and after to know whether it must be priced again.
 */

/** A pickup moved by at most this much still books the quoted price. */
export const QUOTE_TIME_TOLERANCE_SECONDS = 60 * 60;
/** Two positions this close are the same place (coordinates sent with fewer decimals, a pin moved to the kerb). */
const SAME_PLACE_KM = 0.1;

/** What a trip's price depends on, as a stored trip, a checked request or a network quote's priced fields hold it. */
export interface PricedTripSource {
  locations?: TripLocations;
  passengerCount?: string | number;
  luggageCount?: string | number | null;
  totalTripDuration?: string | number | null;
  runType?: string | null;
  /** The requested extras ([{code, quantity}]), where a trip names them. */
  extras?: unknown;
  /** Members no schema names: `extras` is read here too while no schema names it. */
  extra?: ExtraFields;
}

/** The priced fields a trip must keep to book its quote, in the order they are reported. */
export const PRICED_FIELDS = [
  "locations.pickup",
  "locations.pickup.time",
  "locations.dropOff",
  "locations.stops",
  "passengerCount",
  "luggageCount",
  "extras",
  "totalTripDuration",
  "runType",
] as const;
export type PricedField = (typeof PRICED_FIELDS)[number];

const PLACE_TEXT = ["locationType", "address", "address1", "city", "state", "zipCode", "country", "landmark"] as const;
const norm = (v: unknown) => (v === undefined || v === null ? "" : String(v).trim().replace(/\s+/g, " ").toLowerCase());

/** Whether two places are the same: by position when both have one, else by what names them (case and spacing aside). */
function samePlace(a: TripLocation | undefined, b: TripLocation | undefined): boolean {
  if (!a || !b) return !a && !b;
  const pa = positionOfText(a);
  const pb = positionOfText(b);
  if (pa && pb) return distanceKm(pa, pb) <= SAME_PLACE_KM && norm(a.locationType) === norm(b.locationType);
  return PLACE_TEXT.every((f) => norm(a[f]) === norm(b[f])) && !pa === !pb;
}

function positionOfText(l: TripLocation): { lat: number; lon: number } | undefined {
  const lat = readCoordinate(l.lat === undefined ? undefined : String(l.lat), 90);
  const lon = readCoordinate(l.lon === undefined ? undefined : String(l.lon), 180);
  return lat !== undefined && lon !== undefined ? { lat, lon } : undefined;
}

/** The instant a pickup time names: its own offset, else read as UTC (both sides of a comparison read it alike). */
export function pickupTimeOf(location: TripLocation | undefined): number | undefined {
  const parts = parseDateTime(String(location?.time ?? ""));
  if (!parts) return undefined;
  return parts.offsetMinutes === null ? parts.naiveUnix : parts.naiveUnix - parts.offsetMinutes * 60;
}

/** The extras a trip asks, as sorted `CODE×quantity` (meet & greet at the pickup counts as MEET_AND_GREET). */
export function requestedExtras(t: PricedTripSource): string {
  const raw = t.extras ?? t.extra?.extras;
  const counts = new Map<string, number>();
  if (Array.isArray(raw))
    for (const e of raw) {
      const item = (e ?? {}) as { code?: unknown; quantity?: unknown };
      const code = String(item.code ?? "")
        .trim()
        .toUpperCase();
      if (code === "") continue;
      const q = Number(item.quantity ?? 1);
      counts.set(code, (counts.get(code) ?? 0) + (Number.isFinite(q) ? q : 1));
    }
  const mg = t.locations?.pickup?.meetAndGreet;
  if ((mg === true || norm(mg) === "true") && !counts.has("MEET_AND_GREET")) counts.set("MEET_AND_GREET", 1);
  return [...counts]
    .filter(([, q]) => q > 0)
    .map(([c, q]) => `${c}×${q}`)
    .sort()
    .join(",");
}

const countOf = (v: unknown) => norm(v);
const isHourly = (t: PricedTripSource) => norm(t.runType) === "hourly";

/**
 * The priced fields in which `asked` differs from `quoted`, one FieldError each (in PRICED_FIELDS order). The
 * pickup times compare as instants (`quotedAt`/`askedAt` when the caller read them in the pickup's own zone, else
 * from the strings) and differ when more than `toleranceSeconds` apart.
 */
export function pricedDifferences(
  quoted: PricedTripSource,
  asked: PricedTripSource,
  options: { toleranceSeconds: number; quotedAt?: number; askedAt?: number },
): FieldError[] {
  const out: FieldError[] = [];
  const add = (field: PricedField, message: string) => out.push({ field, message });
  const q = quoted.locations;
  const a = asked.locations;
  if (!samePlace(q?.pickup, a?.pickup)) add("locations.pickup", "is another place than the quoted pickup");
  const qt = options.quotedAt ?? pickupTimeOf(q?.pickup);
  const at = options.askedAt ?? pickupTimeOf(a?.pickup);
  if (qt === undefined || at === undefined ? norm(q?.pickup?.time) !== norm(a?.pickup?.time) : Math.abs(qt - at) > options.toleranceSeconds)
    add("locations.pickup.time", options.toleranceSeconds > 0 ? "is more than 60 minutes from the quoted pickup time" : "changed");
  if (!samePlace(q?.dropOff, a?.dropOff)) add("locations.dropOff", "is another place than the quoted drop-off");
  const qs = q?.stops ?? [];
  const as = a?.stops ?? [];
  if (qs.length !== as.length || qs.some((s, i) => !samePlace(s, as[i]))) add("locations.stops", "are not the quoted stops");
  if (countOf(quoted.passengerCount) !== countOf(asked.passengerCount)) add("passengerCount", `is not the quoted ${countOf(quoted.passengerCount)}`);
  if (countOf(quoted.luggageCount) !== countOf(asked.luggageCount))
    add("luggageCount", `is not the quoted ${countOf(quoted.luggageCount) || "(not specified)"}`);
  if (requestedExtras(quoted) !== requestedExtras(asked)) add("extras", `are not the quoted ${requestedExtras(quoted) || "(none)"}`);
  if (countOf(quoted.totalTripDuration) !== countOf(asked.totalTripDuration))
    add("totalTripDuration", `is not the quoted ${countOf(quoted.totalTripDuration) || "(not specified)"}`);
  if (isHourly(quoted) !== isHourly(asked)) add("runType", isHourly(quoted) ? "must stay HOURLY, as quoted" : "was not HOURLY when quoted");
  return out;
}

/** 409 QUOTE_TRIP_MISMATCH: the trip booked is not the one quoted, naming each differing field. */
export function quoteTripMismatch(errors: FieldError[], details: Record<string, unknown> = {}): ConflictError {
  const fields = errors.map((e) => e.field);
  return new ConflictError(
    `The trip differs from the quoted one in ${fields.join(", ")}; the quoted price holds only for the quoted trip: request a new quote`,
    "QUOTE_TRIP_MISMATCH",
    { ...details, fields, errors },
  );
}

/** 409 REQUOTE_NEEDED: the booked vehicle cannot do the trip as changed, so it has no price for it. */
export function requoteNeeded(reason: string, details: Record<string, unknown> = {}): ConflictError {
  return new ConflictError(
    `The booked vehicle cannot do the changed trip (${reason}); nothing was changed: request a new quote, or cancel and book again`,
    "REQUOTE_NEEDED",
    { ...details, reason },
  );
}

/** A stable key of a trip's priced fields (two trips with the same key are priced alike). */
export function pricedKey(t: PricedTripSource, pickupAt?: number): string {
  const l = t.locations;
  const place = (p: TripLocation | undefined) => (p ? [positionOfText(p) ?? null, ...PLACE_TEXT.map((f) => norm(p[f]))] : null);
  return canonicalJson({
    pickup: place(l?.pickup),
    at: pickupAt ?? pickupTimeOf(l?.pickup) ?? norm(l?.pickup?.time),
    dropOff: place(l?.dropOff),
    stops: (l?.stops ?? []).map(place),
    passengers: countOf(t.passengerCount),
    luggage: countOf(t.luggageCount),
    extras: requestedExtras(t),
    duration: countOf(t.totalTripDuration),
    hourly: isHourly(t),
  });
}

/** A booking made from a quote, priced again for the trip an UPDATE makes of it (same vehicle, the provider's pricing). */
export interface RepricedTrip {
  /** pricedKey of the trip priced: the decision applies the price only to that trip. */
  key: string;
  fees: Fee[];
  totalAmount: string;
  /** The changeLogs line, with the new total. */
  described: string;
  /** The booking's vehicle hold for the changed trip, when it moves (docs/availability.md#an-update-moves-the-hold). */
  hold?: BookingWrite["hold"];
}

/**
 * The new price (and hold) of a booking made from a quote whose UPDATE changes a priced field: the one the use case
 * worked out for exactly this trip and vehicle (repriceForUpdate), else 409 (the booking changed meanwhile, a cascade
 * moved it). Undefined when no priced field changed.
 */
export function repricedFor(b: Booking, trip: Trip, pickupDate: number | undefined, price: RepricedTrip | undefined): RepricedTrip | undefined {
  const key = pricedKey(trip, pickupDate ?? b.pickupDate);
  if (key === pricedKey(b.trip, b.pickupDate)) return undefined;
  const moved = price?.hold && (price.hold.provider !== b.providerId || price.hold.slug !== b.quoted?.code);
  if (price?.key !== key || moved) throw new ConflictError("The booking changed while its new price was worked out; send the UPDATE again", "BOOKING_CHANGED");
  return price;
}
