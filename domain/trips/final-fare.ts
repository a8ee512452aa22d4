import { ConflictError } from "../errors";
import { isoAt, type Booking, type BookingEvent, type FinalFare } from "./booking";
import type { Decision } from "./decision";
import type { TripStatus } from "./lifecycle";

/**
 * The final fare (docs/settlement.md#the-final-fare), pure: from COMPLETE (or CLOSE) the provider may add fee lines for
 * 24 h; then the fare is FINAL — the watch announces it once (`booking.fare_final`), and a later change of the lines
 * or the total is 409 FARE_FINAL.
 */

/** How long the fare stays open after the trip ends (s). */
export const FARE_WINDOW_SECONDS = 24 * 3600;
/** The code of the conflict when a provider changes a fare that is final. */
export const FARE_FINAL = "FARE_FINAL";

/** The statuses from which the fare's window runs: the trip has ended. */
const FARE_STATUSES: ReadonlySet<TripStatus> = new Set(["COMPLETE", "CLOSE"]);

/** The fare's window a move to `to` opens at `now` (the first COMPLETE or CLOSE), or the booking's own. */
export function fareOnMove(b: Pick<Booking, "finalFare">, to: TripStatus, now: number): FinalFare | undefined {
  if (b.finalFare !== undefined || !FARE_STATUSES.has(to)) return b.finalFare;
  return { until: now + FARE_WINDOW_SECONDS };
}

/** Whether the booking's fare is final at `now`: the watch said so, or its window has passed. */
export function isFareFinal(b: Pick<Booking, "finalFare">, now: number): boolean {
  return b.finalFare !== undefined && (b.finalFare.final === true || b.finalFare.until <= now);
}

/** Whether the fare is open at `now`: the trip ended and the window still runs. */
export function isFareOpen(b: Pick<Booking, "finalFare">, now: number): boolean {
  return b.finalFare !== undefined && !isFareFinal(b, now);
}

/** When the watch must make the fare final (Unix seconds), or null: nothing to do. */
export function fareDue(b: Pick<Booking, "finalFare">): number | null {
  return b.finalFare !== undefined && b.finalFare.final !== true ? b.finalFare.until : null;
}

/** 409 FARE_FINAL: the fare's lines and total no longer change (docs/settlement.md#the-final-fare). */
export function fareFinalError(b: Pick<Booking, "finalFare">): ConflictError {
  const since = b.finalFare ? isoAt(b.finalFare.until) : undefined;
  return new ConflictError(
    `The fare is final${since ? ` since ${since}` : ""}: its lines and total no longer change (settle any difference with the requester)`,
    FARE_FINAL,
    since ? { finalSince: since } : undefined,
  );
}

/** The fare's state as reads show it: `{state, until}` (until as an ISO instant), absent before the trip ends. */
export function finalFareView(b: Pick<Booking, "finalFare">): { state: "OPEN" | "FINAL"; until: string } | undefined {
  if (b.finalFare === undefined) return undefined;
  return { state: b.finalFare.final ? "FINAL" : "OPEN", until: isoAt(b.finalFare.until) };
}

/**
 * What the watch does to a booking whose fare window has passed, in its transaction: the fare becomes FINAL, a
 * changeLogs line says at which total, and FARE_FINAL is announced (once: a final fare is never due again).
 */
export function decideFareFinal(current: Booking | undefined, now: number): Decision<boolean> {
  const b = current;
  if (!b || b.finalFare === undefined || b.finalFare.final || b.finalFare.until > now) return { result: false };
  const currency = b.trip.fees.find((f) => typeof f.currency === "string")?.currency;
  const changeDesc = `fare final: totalAmount ${b.totalAmount ?? "(none)"}${currency ? ` ${currency}` : ""}`;
  const booking: Booking = {
    ...b,
    finalFare: { until: b.finalFare.until, final: true },
    updatedAt: now,
    changeLogs: [...b.changeLogs, { timestamp: isoAt(now), changeSource: "exchange", changeDesc }],
  };
  const fareFinal: BookingEvent = { type: "FARE_FINAL", transactionId: b.transactionId, actor: "provider", at: now, status: b.status, byExchange: true };
  return { result: true, write: { booking, events: [fareFinal] } };
}
