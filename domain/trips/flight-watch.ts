import type { Booking } from "./booking";
import { flightDue, flightName, namesFlight } from "./flights";
import type { FlightReport } from "./flight-move";

// The flight-status poller's rules (docs/flights.md#the-flight-status-poller): which bookings it watches, which
// flight it asks about, and which answer is news that moves a pickup. Pure: the use case poll-flights.ts calls them.

/** A flight as the service asks a flight-data API about it: the airline's code and number, its scheduled landing. */
export interface FlightQuery {
  /** Upper case, as the booking's flightInfo named it (`BA`, `B6`, `DLH`). */
  airlineCode: string;
  /** Without the airline code some clients put before it (`117`, `1544A`). */
  flightNumber: string;
  /** Unix seconds. */
  scheduledLanding: number;
}

/** What a flight-data API knows of a flight's landing (Unix seconds); a member it does not know is absent. */
export interface FlightStatusAnswer {
  scheduledLanding?: number;
  estimatedLanding?: number;
  landedAt?: number;
}

/** A flight's landing estimate moving by less than this is not news: the pickup is not moved for it. */
export const MIN_ESTIMATE_CHANGE_MINUTES = 5;
/** A flight whose expected landing passed this long ago without a landing reported is no longer asked about. */
export const LANDING_GRACE_MINUTES = 120;

/** The flight a watched booking meets, as the API is asked about it; undefined for a booking flightDue leaves out. */
export function flightQuery(b: Booking): FlightQuery | undefined {
  const info = b.trip.locations.pickup.flightInfo;
  if (flightDue(b) === null || !namesFlight(info)) return undefined;
  const airlineCode = info.airlineCode.toUpperCase();
  return { airlineCode, flightNumber: flightName(info).slice(airlineCode.length), scheduledLanding: b.flight!.scheduledLanding! };
}

/** One key per flight (several bookings meeting it share one request): its name and scheduled landing. */
export const flightKey = (q: FlightQuery): string => `${q.airlineCode}${q.flightNumber}@${q.scheduledLanding}`;

/**
 * The report an answer makes for a booking, when it is news: a landing the booking does not know yet, or an
 * estimate at least MIN_ESTIMATE_CHANGE_MINUTES away from the one it knows (its schedule, before any estimate).
 * Undefined when the answer tells the booking nothing new, so an unchanged flight moves nothing and sends nothing.
 */
export function newsFor(b: Booking, answer: FlightStatusAnswer): FlightReport | undefined {
  const f = b.flight;
  if (!f) return undefined;
  const scheduled = f.scheduledLanding === undefined && answer.scheduledLanding !== undefined ? { scheduledLanding: answer.scheduledLanding } : {};
  if (answer.landedAt !== undefined) return f.landedAt === answer.landedAt ? undefined : { kind: "LANDED", landing: answer.landedAt, ...scheduled };
  if (answer.estimatedLanding === undefined) return undefined;
  const known = f.estimatedLanding ?? f.scheduledLanding;
  if (known !== undefined && Math.abs(answer.estimatedLanding - known) < MIN_ESTIMATE_CHANGE_MINUTES * 60) return undefined;
  return { kind: "ESTIMATED", landing: answer.estimatedLanding, ...scheduled };
}
