import type { RateBudgets } from "../rate-limit";
import type { Booking } from "../trips/booking";
import { flightKey, flightQuery, LANDING_GRACE_MINUTES, newsFor, type FlightQuery, type FlightStatusAnswer } from "../trips/flight-watch";
import type { FlightStatus, LandingsDue } from "../trips/ports";
import { applyFlightStatus, type FollowFlightDeps } from "./follow-flight";

/**
 * The flight-status poller (docs/flights.md#the-flight-status-poller): for the bookings whose flight lands within the
 * window and that still follow it, ask the FlightStatus port about each flight — one question per flight however many
 * bookings meet it, at most once per interval, within a budget of questions per minute — and move each pickup through
 * the same change a party's flight status makes (applyFlightStatus), once per real change. A failing API is reported
 * and the poller backs off.
 */

export interface FlightPollSettings {
  /** Flights landing within this many hours are asked about (FLIGHT_STATUS_WINDOW_HOURS). */
  windowHours: number;
  /** Questions per minute, shared by the instances of one database (FLIGHT_STATUS_PER_MINUTE). */
  perMinute: number;
  /** A flight is asked about at most once per this many seconds (FLIGHT_STATUS_INTERVAL_SECONDS). */
  intervalSeconds: number;
}

export interface FlightPollDeps {
  follow: FollowFlightDeps;
  landings: LandingsDue;
  status: FlightStatus;
  budgets: RateBudgets;
  settings: FlightPollSettings;
  /** Told each failure: the API's (with the back-off it caused) or a move's. Never carries the API's key. */
  onProblem: (problem: { reason: string; flight?: string; transactionId?: string; backoffSeconds?: number }) => void;
}

/** What one pass did. */
export interface FlightPollPass {
  asked: number;
  moved: number;
}

/** Bookings one pass reads at most (the soonest landings first). */
const BOOKINGS_PER_PASS = 2000;
/** After a failure the API rests this long, doubled with each failure in a row up to BACKOFF_MAX_SECONDS. */
const BACKOFF_FIRST_SECONDS = 30;
const BACKOFF_MAX_SECONDS = 15 * 60;
const BUDGET_KEY = "flight-status:questions";

/** A poller: its `pass` runs one round (the loop in src/ calls it on a timer); it remembers when it asked each flight. */
export function flightPoller(deps: FlightPollDeps) {
  const asked = new Map<string, number>();
  let failures = 0;
  let resumeAt = 0;

  async function pass(): Promise<FlightPollPass> {
    const now = deps.follow.clock.now();
    const done: FlightPollPass = { asked: 0, moved: 0 };
    if (now < resumeAt) return done;
    const { intervalSeconds, windowHours, perMinute } = deps.settings;
    for (const [key, at] of asked) if (at + intervalSeconds <= now) asked.delete(key);
    const due = await deps.landings.landingBetween(now - LANDING_GRACE_MINUTES * 60, now + windowHours * 3600, BOOKINGS_PER_PASS);
    for (const [key, { query, bookings }] of byFlight(due)) {
      if (asked.has(key)) continue;
      if (!(await deps.budgets.take(BUDGET_KEY, perMinute, 60, now)).allowed) break;
      asked.set(key, now);
      done.asked++;
      const answer = await ask(query);
      if (answer === false) {
        // Asked again once the back-off ends, not an interval later.
        asked.delete(key);
        break;
      }
      if (answer) done.moved += await follow(bookings, answer);
    }
    return done;

    async function ask(query: FlightQuery) {
      try {
        const answer = await deps.status.statusOf(query);
        failures = 0;
        return answer;
      } catch (error) {
        failures++;
        const backoffSeconds = Math.min(BACKOFF_MAX_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (failures - 1));
        resumeAt = now + backoffSeconds;
        deps.onProblem({ reason: reasonOf(error), flight: `${query.airlineCode}${query.flightNumber}`, backoffSeconds });
        return false;
      }
    }
  }

  async function follow(bookings: Booking[], answer: FlightStatusAnswer): Promise<number> {
    let moved = 0;
    for (const b of bookings) {
      const report = newsFor(b, answer);
      if (!report) continue;
      try {
        if ((await applyFlightStatus(deps.follow, b.transactionId, report)).moved) moved++;
      } catch (error) {
        // A move onto a held hour (both parties warned), a booking that ended meanwhile: the next change may do.
        deps.onProblem({ reason: reasonOf(error), transactionId: b.transactionId });
      }
    }
    return moved;
  }

  return { pass };
}

/** The watched bookings grouped by the flight they meet, one question each. */
function byFlight(due: Booking[]): Map<string, { query: FlightQuery; bookings: Booking[] }> {
  const flights = new Map<string, { query: FlightQuery; bookings: Booking[] }>();
  for (const b of due) {
    const query = flightQuery(b);
    if (!query) continue;
    const key = flightKey(query);
    const flight = flights.get(key);
    if (flight) flight.bookings.push(b);
    else flights.set(key, { query, bookings: [b] });
  }
  return flights;
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
