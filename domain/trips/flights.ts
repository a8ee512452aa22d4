import type { FlightInfo } from "./trip-parts";
import type { FlightRecord, PickupMove } from "./flight-record";
import { parseDateTime } from "./places";
import { ValidationError } from "../errors";
import { isoAt, type Booking } from "./booking";
import { CANCELLABLE_STATUSES } from "./lifecycle";

export type { FlightRecord, MoveCause, PickupMove } from "./flight-record";

/** Reports one failing member (as trip-fields' readers do). */
type Fail = (field: string, message: string) => void;

// The flight a pickup meets (docs/flights.md#flights): what a pickup's flightInfo must hold, what the booking keeps
// of it, and the question the give-back recovery asks of a moved pickup.

/** A pickup moved by a flight by more than this many minutes lets its provider give it back without recovery. */
export const WAIVER_MOVE_MINUTES = 60;
/** ... within this many minutes of the move (docs/flights.md#a-big-move-lets-the-provider-give-the-booking-back). */
export const WAIVER_WINDOW_MINUTES = 30;
/** A pickup moved to less than this many minutes from now warns PICKUP_MOVED_SHORT_NOTICE. */
export const SHORT_NOTICE_MINUTES = 15;
/** The scheduled landing lies at most this long before the pickup (a day). */
export const MAX_PICKUP_OFFSET_MINUTES = 1440;

const AIRLINE = /^[A-Z0-9]{2,3}$/i;
const NUMBER = /^\d{1,4}[A-Z]?$/i;
const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/** Whether a pickup's flightInfo names a flight (GNet clients send `{airlineCode: "", flightNumber: ""}` for none). */
export function namesFlight(info: FlightInfo | undefined): info is FlightInfo & { airlineCode: string; flightNumber: string } {
  return info !== undefined && !blank(info.airlineCode) && !blank(info.flightNumber);
}

/**
 * A pickup's flightInfo checked (docs/flights.md#flights): a 2–3 character airline code, a flight number of 1–4
 * digits with an optional letter (GNet clients also send it after the airline code, `B6 1544`, or as a JSON number),
 * never "TBD"; `scheduledArrival` an ISO 8601 date-time. Members are kept as sent (text trimmed); blank members
 * name no flight and are kept too. Each failing member is reported to `fail`.
 */
export function checkFlightInfo(raw: Record<string, unknown>, field: string, fail: Fail): FlightInfo {
  const out: FlightInfo = { ...raw };
  for (const key of ["airlineCode", "flightNumber", "scheduledArrival"] as const) {
    const v = raw[key];
    if (typeof v === "string") out[key] = v.trim();
    else if (typeof v === "number" && key === "flightNumber" && Number.isInteger(v)) out[key] = String(v);
  }
  const nothing = blank(out.airlineCode) && blank(out.flightNumber) && blank(out.scheduledArrival);
  if (nothing) return out;
  const airline = typeof out.airlineCode === "string" ? out.airlineCode : undefined;
  const tbd = (v: unknown) => typeof v === "string" && /^(tba|tbd)$/i.test(v);
  if (blank(out.airlineCode)) fail(`${field}.airlineCode`, "is required with a flight: the airline's 2–3 character code, e.g. BA");
  else if (tbd(airline) || !AIRLINE.test(airline ?? ""))
    fail(`${field}.airlineCode`, "must be the airline's 2–3 character code (e.g. BA, B6, AAL), never TBD: send the flight once it is known");
  const number = typeof out.flightNumber === "string" ? out.flightNumber : undefined;
  if (blank(out.flightNumber)) fail(`${field}.flightNumber`, "is required with a flight: 1–4 digits with an optional letter, e.g. 117");
  else if (tbd(number) || !NUMBER.test(withoutAirline(number ?? "", airline)))
    fail(`${field}.flightNumber`, "must be the flight's number, 1–4 digits with an optional letter (e.g. 117, 1544A), never TBD");
  if (!blank(out.scheduledArrival) && (typeof out.scheduledArrival !== "string" || !parseDateTime(out.scheduledArrival)))
    fail(`${field}.scheduledArrival`, "must be the scheduled landing as an ISO 8601 date-time, e.g. 2026-12-11T20:40:00 (local time at the airport)");
  return out;
}

/** The number without the airline code GNet clients sometimes put before it (`B61544`, `B6 1544` → `1544`). */
function withoutAirline(number: string, airline: string | undefined): string {
  if (!airline || !AIRLINE.test(airline)) return number;
  const lower = number.toLowerCase();
  return lower.startsWith(airline.toLowerCase()) ? number.slice(airline.length).trimStart() : number;
}

/** The flight's name as people say it (`BA117`). */
export function flightName(info: { airlineCode: string; flightNumber: string }): string {
  return `${info.airlineCode.toUpperCase()}${withoutAirline(info.flightNumber, info.airlineCode).toUpperCase()}`;
}

/**
 * What a booking keeps of its pickup's flight when the pickup is set (a NEW, or the requester's UPDATE of the
 * pickup): the pickup as the original, and the offset from the scheduled landing (`landing`, read in the pickup's
 * zone) when known. undefined when the pickup names no flight. A landing after the pickup, or more than a day before
 * it, is refused by `offsetProblem`.
 */
export function flightRecord(info: FlightInfo | undefined, pickupDate: number, landing: number | undefined): FlightRecord | undefined {
  if (!namesFlight(info)) return undefined;
  if (landing === undefined) return { originalPickup: pickupDate };
  return { pickupOffsetMinutes: Math.round((pickupDate - landing) / 60), scheduledLanding: landing, originalPickup: pickupDate };
}

/** Why a scheduled landing cannot go with this pickup (after it, or more than a day before it); undefined when it can. */
export function offsetProblem(pickupDate: number, landing: number): string | undefined {
  const minutes = (pickupDate - landing) / 60;
  if (minutes < 0) return "is after the pickup time: the pickup follows the landing (pickup = landing + the minutes you allow)";
  if (minutes > MAX_PICKUP_OFFSET_MINUTES) return "is more than 24 hours before the pickup time";
  return undefined;
}

/**
 * Whether the provider may give the booking back now without the give-back recovery
 * (docs/flights.md#a-big-move-lets-the-provider-give-the-booking-back): its flight moved the pickup more than
 * WAIVER_MOVE_MINUTES away from the pickup booked, and the move was made at most WAIVER_WINDOW_MINUTES ago. `now`:
 * Unix seconds. Pure: the recovery code calls it with the booking as it is.
 */
export function giveBackWaived(booking: { flight?: FlightRecord }, now: number): boolean {
  const f = booking.flight;
  if (!f?.lastMove) return false;
  const moved = Math.abs(f.lastMove.to - f.originalPickup);
  return moved > WAIVER_MOVE_MINUTES * 60 && now >= f.lastMove.at && now - f.lastMove.at <= WAIVER_WINDOW_MINUTES * 60;
}

/**
 * The flight record of a pickup as set by its requester (a NEW, an UPDATE of the pickup): its scheduled landing read
 * like the pickup's own time (`readTime`: a wall-clock time in the pickup's zone, or an instant). 400 naming
 * `scheduledArrival` when the landing lies after the pickup or more than a day before it. undefined: no flight.
 */
export function pickupFlight(info: FlightInfo | undefined, pickupDate: number, readTime: (time: string) => number | undefined): FlightRecord | undefined {
  if (!namesFlight(info)) return undefined;
  const sent = typeof info.scheduledArrival === "string" && info.scheduledArrival !== "" ? info.scheduledArrival : undefined;
  const landing = sent !== undefined ? readTime(sent) : undefined;
  const problem = landing !== undefined ? offsetProblem(pickupDate, landing) : undefined;
  if (problem) throw new ValidationError([{ field: "locations.pickup.flightInfo.scheduledArrival", message: problem }]);
  return flightRecord(info, pickupDate, landing);
}

/** Where the flight stands: as scheduled, with an estimate, or landed. */
export type FlightState = "SCHEDULED" | "ESTIMATED" | "LANDED";

/** The flight as every read shows it (docs/flights.md#flights): instants in UTC ISO 8601, the offset in minutes. */
export function flightView(f: FlightRecord, info: FlightInfo | undefined) {
  const state: FlightState = f.landedAt !== undefined ? "LANDED" : f.estimatedLanding !== undefined ? "ESTIMATED" : "SCHEDULED";
  return {
    airlineCode: String(info?.airlineCode ?? ""),
    flightNumber: String(info?.flightNumber ?? ""),
    state,
    scheduledLanding: f.scheduledLanding !== undefined ? isoAt(f.scheduledLanding) : null,
    pickupOffsetMinutes: f.pickupOffsetMinutes ?? null,
    ...(f.estimatedLanding !== undefined ? { estimatedLanding: isoAt(f.estimatedLanding) } : {}),
    ...(f.landedAt !== undefined ? { landedAt: isoAt(f.landedAt) } : {}),
    originalPickup: isoAt(f.originalPickup),
    ...(f.lastMove ? { lastMove: { ...moveView(f.lastMove), at: isoAt(f.lastMove.at) } } : {}),
  };
}

/** A move as events and reads carry it: `from` and `to` as UTC ISO 8601 instants, and why. */
export function moveView(m: PickupMove) {
  return { from: isoAt(m.from), to: isoAt(m.to), cause: m.cause };
}

/**
 * When the booking's flight is expected to land (its latest estimate, else its schedule), while the booking still
 * follows it: a live booking (not a quote, the passenger not on board, not ended) whose pickup names a flight with a
 * known schedule that has not landed. Null otherwise: what the `flight_due` column stores, for the flight-status
 * poller to find it (docs/flights.md#the-flight-status-poller).
 */
export function flightDue(b: Booking): number | null {
  const f = b.flight;
  if (!f || f.landedAt !== undefined || f.scheduledLanding === undefined) return null;
  if (b.status === "QUOTE" || !CANCELLABLE_STATUSES.has(b.status) || !namesFlight(b.trip.locations.pickup.flightInfo)) return null;
  return f.estimatedLanding ?? f.scheduledLanding;
}
