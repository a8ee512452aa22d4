import { ConflictError } from "../errors";
import { isoAt, roleOf, type Booking, type BookingEvent } from "./booking";
import type { BookingWrite, Decision } from "./decision";
import { bookingNotFound } from "./decisions";
import { flightName, flightView, moveView, namesFlight, SHORT_NOTICE_MINUTES } from "./flights";
import type { FlightRecord, PickupMove } from "./flight-record";
import { CANCELLABLE_STATUSES, type TripActor } from "./lifecycle";
import { acceptByFollowingPickup } from "./offers";
import { movedTerms } from "./terms";
import type { TripWarning } from "./warnings";

// The pickup follows the flight (docs/flights.md#the-pickup-follows-the-flight): a flight status moves the pickup to
// landing + the booking's offset, with its terms, its vehicle hold and its delivery, in one change.

/** A flight's status as reported: an estimated landing or the actual one (Unix seconds). */
export interface FlightReport {
  kind: "ESTIMATED" | "LANDED";
  landing: number;
  /** The scheduled landing the reporter knows: used when the booking has none (its pickup sent no scheduledArrival). */
  scheduledLanding?: number;
}

/** Who reports: a company's user (a party of the booking, the sandbox's included) or the service's flight-data adapter. */
export type FlightReporter = { netid: string; uid: string } | { service: string };

/** What a flight status did to the booking. */
export interface FlightMoveResult {
  transactionId: string;
  moved: boolean;
  /** The pickup's time as stored (its own form: the local wall-clock time), and its instant (Unix seconds). */
  time: string;
  pickupDate: number;
  /** The move made, as events carry it. */
  move?: ReturnType<typeof moveView>;
  /** PICKUP_MOVED_SHORT_NOTICE while the booking carries it. */
  warnings: ShortNotice[];
  flight: ReturnType<typeof flightView>;
}

type ShortNotice = TripWarning & { code: "PICKUP_MOVED_SHORT_NOTICE" };

/** How the move is written: the pickup's time text for an instant (its own form), the vehicle hold moved with it. */
export interface MoveFacts {
  timeText: (at: number) => string;
  /** Where the booking's hold lies relative to its pickup (seconds) and how long it is; absent: it holds no vehicle. */
  hold?: { slug: string; lead: number; length: number };
}

/** The booking's flight and where the report moves its pickup to; 404 for a company that is not a party, 409 when it cannot move. */
export function plannedMove(current: Booking | undefined, report: FlightReport, reporter: FlightReporter): { b: Booking; to: number; flight: FlightRecord } {
  const b = current;
  if (!b || ("netid" in reporter && !roleOf(b, reporter.netid))) throw bookingNotFound();
  if (b.status === "QUOTE" || !CANCELLABLE_STATUSES.has(b.status))
    throw new ConflictError(`A booking in status ${b.status} no longer follows its flight`, "PICKUP_NOT_MOVABLE", { status: b.status });
  if (!b.flight || !namesFlight(b.trip.locations.pickup.flightInfo))
    throw new ConflictError("The booking's pickup names no flight (locations.pickup.flightInfo)", "NO_FLIGHT");
  const scheduled = b.flight.scheduledLanding ?? report.scheduledLanding;
  if (scheduled === undefined)
    throw new ConflictError(
      "The flight's scheduled landing is unknown: send scheduledArrival with the status, or in the pickup's flightInfo",
      "FLIGHT_SCHEDULE_UNKNOWN",
    );
  const offset = b.flight.pickupOffsetMinutes ?? Math.round((b.flight.originalPickup - scheduled) / 60);
  const flight: FlightRecord = {
    ...b.flight,
    scheduledLanding: scheduled,
    pickupOffsetMinutes: offset,
    ...(report.kind === "LANDED" ? { landedAt: report.landing } : { estimatedLanding: report.landing }),
  };
  return { b, to: report.landing + offset * 60, flight };
}

const who = (b: Booking, reporter: FlightReporter): { actor: TripActor; source: string; byExchange: boolean } =>
  "netid" in reporter
    ? { actor: roleOf(b, reporter.netid)!, source: `${roleOf(b, reporter.netid)}:${reporter.uid}`, byExchange: false }
    : { actor: "provider", source: `exchange:${reporter.service}`, byExchange: true };

/**
 * The flight status decided, inside the booking's transaction: the pickup moves to landing + offset — its time text
 * (its own form), its instant, the terms' instants, the vehicle hold (`write.hold`: onto a held hour the whole change
 * fails 409 VEHICLE_UNAVAILABLE), a changeLogs line and PICKUP_MOVED (the provider's UPDATE, the webhook, the event).
 * A status that does not move the pickup keeps only what it says of the flight.
 */
export function decideFlightMove(
  current: Booking | undefined,
  report: FlightReport,
  reporter: FlightReporter,
  now: number,
  facts: MoveFacts,
): Decision<FlightMoveResult> {
  const { b, to, flight } = plannedMove(current, report, reporter);
  const time = b.trip.locations.pickup.time ?? "";
  const answer = (x: Booking, move?: PickupMove) => ({
    transactionId: x.transactionId,
    moved: move !== undefined,
    time: x.trip.locations.pickup.time ?? "",
    pickupDate: x.pickupDate,
    ...(move ? { move: moveView(move) } : {}),
    warnings: (x.warnings ?? []).filter((w): w is ShortNotice => w.code === "PICKUP_MOVED_SHORT_NOTICE"),
    flight: flightView(x.flight!, x.trip.locations.pickup.flightInfo),
  });
  if (to === b.pickupDate) {
    const kept: Booking = { ...b, flight, updatedAt: now };
    const same = JSON.stringify(flight) === JSON.stringify(b.flight);
    return same ? { result: answer(b) } : { result: answer(kept), write: { booking: kept, events: [] } };
  }
  const { actor, source, byExchange } = who(b, reporter);
  const move: PickupMove = { from: b.pickupDate, to, cause: to > b.pickupDate ? "FLIGHT_DELAY" : "FLIGHT_EARLY" };
  const text = facts.timeText(to);
  const minutes = Math.round((to - b.pickupDate) / 60);
  const name = flightName(b.trip.locations.pickup.flightInfo as { airlineCode: string; flightNumber: string });
  const landing = `${report.kind === "LANDED" ? "landed" : "estimated landing"} ${isoAt(report.landing)}`;
  const warnings = (b.warnings ?? []).filter((w) => w.code !== "PICKUP_MOVED_SHORT_NOTICE");
  if (to - now < SHORT_NOTICE_MINUTES * 60)
    warnings.push({
      code: "PICKUP_MOVED_SHORT_NOTICE",
      field: "locations.pickup.time",
      message: `Flight ${name} moved the pickup to ${text} (${isoAt(to)}), less than ${SHORT_NOTICE_MINUTES} minutes from the move`,
    });
  const moved: Booking = {
    ...b,
    trip: { ...b.trip, locations: { ...b.trip.locations, pickup: { ...b.trip.locations.pickup, time: text } } },
    pickupDate: to,
    updatedAt: now,
    flight: { ...flight, lastMove: { ...move, at: now } },
    ...(warnings.length > 0 || b.warnings ? { warnings } : {}),
    // The terms are counted from the pickup: their instants move with it.
    ...(b.terms ? { terms: movedTerms(b.terms, to - b.pickupDate) } : {}),
    changeLogs: [
      ...b.changeLogs,
      {
        timestamp: isoAt(now),
        changeSource: source,
        changeDesc: `pickup moved by flight ${name} (${landing}): ${time} → ${text} (${move.cause}, ${minutes > 0 ? "+" : ""}${minutes} min)`,
      },
    ],
  };
  // An earlier pickup pulls an unaccepted offer's deadline in with it.
  const booking = acceptByFollowingPickup(b, moved, now);
  const event: BookingEvent = {
    type: "PICKUP_MOVED",
    transactionId: b.transactionId,
    actor,
    at: now,
    status: b.status,
    pickupMove: move,
    ...(byExchange ? { byExchange: true as const } : {}),
  };
  const hold: BookingWrite["hold"] | undefined = facts.hold
    ? {
        slug: facts.hold.slug,
        provider: b.providerId,
        requester: b.requesterId,
        transactionId: b.transactionId,
        from: to + facts.hold.lead,
        to: to + facts.hold.lead + facts.hold.length,
        at: now,
      }
    : undefined;
  return { result: answer(booking, move), write: { booking, events: [event], ...(hold ? { hold } : {}) } };
}

/**
 * A move refused because the vehicle is held at the new hour (409 VEHICLE_UNAVAILABLE): the pickup, terms and hold
 * stay as they were; the booking keeps the flight's news, a transactionErrors entry and a changeLogs line, and both
 * parties are warned (PICKUP_MOVE_BLOCKED: `booking.pickup_move_blocked`, webhook and event stream).
 */
export function decideMoveBlocked(current: Booking | undefined, report: FlightReport, reporter: FlightReporter, now: number): Decision<undefined> {
  const { b, to, flight } = plannedMove(current, report, reporter);
  if (to === b.pickupDate) return { result: undefined };
  const { actor, source } = who(b, reporter);
  const move: PickupMove = { from: b.pickupDate, to, cause: to > b.pickupDate ? "FLIGHT_DELAY" : "FLIGHT_EARLY" };
  const slug = b.quoted?.code ?? "";
  const said = `flight moved the pickup to ${isoAt(to)} (${move.cause}), but vehicle ${slug} is held then: the pickup stays at ${isoAt(b.pickupDate)}`;
  const booking: Booking = {
    ...b,
    flight,
    updatedAt: now,
    transactionErrors: [...b.transactionErrors, { timestamp: isoAt(now), errCode: "PICKUP_MOVE_VEHICLE_UNAVAILABLE", errDesc: said }],
    changeLogs: [...b.changeLogs, { timestamp: isoAt(now), changeSource: source, changeDesc: said }],
  };
  const event: BookingEvent = {
    type: "PICKUP_MOVE_BLOCKED",
    transactionId: b.transactionId,
    actor,
    at: now,
    status: b.status,
    pickupMove: move,
    // The exchange's warning: never refused for a company's store bound.
    byExchange: true,
  };
  return { result: undefined, write: { booking, events: [event] } };
}
