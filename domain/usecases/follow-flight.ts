import type { AirportDirectory } from "../airports";
import { ConflictError, ValidationError } from "../errors";
import type { HoldIndex } from "../fleet/holds";
import type { Caller, Clock } from "../ports";
import type { Booking } from "../trips/booking";
import { bookingNotFound } from "../trips/decisions";
import { requireTransactionId } from "../trips/find-booking";
import { decideFlightMove, decideMoveBlocked, plannedMove } from "../trips/flight-move";
import type { FlightMoveResult, FlightReport, FlightReporter, MoveFacts } from "../trips/flight-move";
import { placePickup, type Gazetteer } from "../trips/pickup-place";
import { landingReader } from "../trips/pickup-time";
import { parseDateTime, pickupZone, type TimeZones } from "../trips/places";
import type { BookingRepository } from "../trips/ports";

/**
 * The pickup follows the flight (docs/flights.md#the-pickup-follows-the-flight): a flight status — from a party of
 * the booking, the sandbox, or the service's flight-data adapter — moves the pickup to landing + offset in one change
 * (pickup, terms, vehicle hold, the provider's UPDATE, webhook and event); a move onto a held hour is 409
 * VEHICLE_UNAVAILABLE and warns both parties.
 */

export interface FollowFlightDeps {
  bookings: BookingRepository;
  clock: Clock;
  airports: AirportDirectory;
  timeZones: TimeZones;
  gazetteer: Gazetteer;
  /** Vehicles held by bookings: a booking holding one moves its hold with its pickup. */
  holds?: HoldIndex;
}

/** A flight status as a party sends it: one of the landings, a wall-clock time at the pickup airport or an instant. */
export interface FlightStatusInput {
  estimatedArrival?: string;
  actualArrival?: string;
  scheduledArrival?: string;
}

/** A party's (or the sandbox's) flight status, through HTTP: 404 for anyone else. */
export function reportFlightStatus(deps: FollowFlightDeps, caller: Caller, transactionId: string, input: FlightStatusInput): Promise<FlightMoveResult> {
  return followFlight(deps, requireTransactionId(transactionId), { netid: caller.netid, uid: caller.uid }, (b) => readStatus(deps, b, input));
}

/** The service's own flight-data adapter reports a landing (instants already). */
export function applyFlightStatus(deps: FollowFlightDeps, transactionId: string, report: FlightReport, service = "flight-status"): Promise<FlightMoveResult> {
  return followFlight(deps, transactionId, { service }, () => report);
}

async function followFlight(
  deps: FollowFlightDeps,
  id: string,
  reporter: FlightReporter,
  read: (b: Booking) => FlightReport,
): Promise<FlightMoveResult> {
  const seen = await deps.bookings.findById(id);
  if (!seen || ("netid" in reporter && !plannedMoveVisible(seen, reporter.netid))) throw bookingNotFound();
  const report = read(seen);
  const { b, to } = plannedMove(seen, report, reporter);
  const now = deps.clock.now();
  const facts: MoveFacts = { timeText: timeTextOf(deps, b), ...(to !== b.pickupDate ? await holdOf(deps, b, now) : {}) };
  try {
    const result = await deps.bookings.change({ transactionId: id }, (current) => decideFlightMove(current, report, reporter, now, facts));
    if (facts.hold && result.moved) deps.holds?.forget(b.providerId);
    return result;
  } catch (error) {
    // Onto a held hour nothing of the move is kept; both parties are warned in a change of its own.
    if (error instanceof ConflictError && error.code === "VEHICLE_UNAVAILABLE")
      await deps.bookings.change({ transactionId: id }, (current) => decideMoveBlocked(current, report, reporter, now));
    throw error;
  }
}

const plannedMoveVisible = (b: Booking, netid: string) =>
  b.requesterId.toLowerCase() === netid.toLowerCase() || b.providerId.toLowerCase() === netid.toLowerCase();

/** The booking's vehicle hold as it lies around its pickup, when it holds one (a booking made from a quoted vehicle). */
async function holdOf(deps: FollowFlightDeps, b: Booking, now: number): Promise<Pick<MoveFacts, "hold">> {
  const slug = b.quoted?.code;
  if (!deps.holds || !slug) return {};
  const holds = await deps.holds.store.scheduleOf(slug, b.pickupDate - 1, b.pickupDate + 1, now);
  const own = holds.find((h) => h.kind === "BOOKING" && h.transactionId === b.transactionId);
  return own ? { hold: { slug, lead: own.from - b.pickupDate, length: own.to - own.from } } : {};
}

/**
 * The pickup's time text for an instant, in the form the requester sent: a wall-clock time at the pickup's place
 * (no offset), or with the offset it carried.
 */
function timeTextOf(deps: FollowFlightDeps, b: Booking): (at: number) => string {
  const pickup = b.trip.locations.pickup;
  const sent = parseDateTime(pickup.time ?? "");
  const naive = (at: number) => new Date(at * 1000).toISOString().slice(0, 19);
  if (sent && sent.offsetMinutes !== null) {
    const suffix = (pickup.time ?? "").trim().match(/(Z|[+-]\d{2}:?\d{2})$/i)?.[0] ?? "Z";
    return (at) => `${naive(at + sent.offsetMinutes! * 60)}${suffix}`;
  }
  const placed = placePickup(pickup, deps);
  const zone = pickupZone(pickup, deps.airports, deps.timeZones, placed.placed ? placed.position : undefined);
  return (at) => (zone === "UTC" ? naive(at) : (deps.timeZones.wallClockAt(at, zone) ?? naive(at)));
}

/** A party's status read: exactly one landing, each time read like the pickup's own; 400 naming the member otherwise. */
function readStatus(deps: FollowFlightDeps, b: Booking, input: FlightStatusInput): FlightReport {
  const given = (["estimatedArrival", "actualArrival"] as const).filter((k) => typeof input[k] === "string" && input[k]!.trim() !== "");
  if (given.length !== 1)
    throw new ValidationError([
      { field: given.length === 0 ? "estimatedArrival" : "actualArrival", message: "send exactly one of estimatedArrival and actualArrival" },
    ]);
  const read = landingReader(b.trip.locations.pickup, deps, placePickup(b.trip.locations.pickup, deps));
  const at = (field: "estimatedArrival" | "actualArrival" | "scheduledArrival") => {
    const text = input[field]!.trim();
    const v = parseDateTime(text) ? read(text) : undefined;
    if (v === undefined)
      throw new ValidationError([{ field, message: "must be an ISO 8601 date-time: local time at the pickup airport, or an instant with Z or an offset" }]);
    return v;
  };
  const kind = given[0] === "actualArrival" ? "LANDED" : "ESTIMATED";
  const scheduled = typeof input.scheduledArrival === "string" && input.scheduledArrival.trim() !== "" ? at("scheduledArrival") : undefined;
  return { kind, landing: at(given[0]), ...(scheduled !== undefined ? { scheduledLanding: scheduled } : {}) };
}
