import { isoAt, type Booking, type BookingEvent } from "./booking";
import type { Decision } from "./decision";
import type { TripStatus } from "./lifecycle";
import type { UnassignedWarning } from "./assignment-record";

/**
 * The assignment deadline (docs/terms.md#the-assignment-deadline), pure: a booking its provider accepted carries
 * `terms.assignBy` (the pickup − the provider's `assignBeforeMinutes`); when no chauffeur is assigned by then, the
 * watch warns both parties once (`booking.unassigned_warning`). The deadline moves with the pickup, so a pickup moved
 * later re-arms the warning for the new deadline; an assignment, a cancel or any end of the booking disarms it.
 */

/** Accepted, and no chauffeur assigned yet: the only statuses the deadline watches. */
const UNASSIGNED: ReadonlySet<TripStatus> = new Set(["CONFIRMED", "ACKNOWLEDGED"]);

/** The deadline of the booking's terms (Unix seconds), or undefined when they carry none. */
export function assignDeadline(b: Pick<Booking, "terms">): number | undefined {
  const at = b.terms?.assignBy === undefined ? NaN : Date.parse(b.terms.assignBy) / 1000;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * When the watch must warn that the booking has no chauffeur (Unix seconds), or null: not accepted, assigned (a
 * status from ASSIGNED on, or a chauffeur named), ended, no deadline, or warned already for this deadline or a later one.
 */
export function assignDue(b: Pick<Booking, "status" | "terms" | "chauffeur" | "unassignedWarning" | "trip">): number | null {
  if (b.trip.reservationType === "QUOTE" || !UNASSIGNED.has(b.status) || b.chauffeur !== undefined) return null;
  const deadline = assignDeadline(b);
  if (deadline === undefined) return null;
  return b.unassignedWarning !== undefined && b.unassignedWarning.assignBy >= deadline ? null : deadline;
}

/** Whole minutes from `now` to the pickup (0 once it passed). */
export const minutesLeft = (w: Pick<UnassignedWarning, "at" | "pickupAt">): number => Math.max(0, Math.floor((w.pickupAt - w.at) / 60));

/** What the warning carries beside the booking: its numbers, the pickup, the deadline and the minutes left. */
export function unassignedView(b: Pick<Booking, "transactionId" | "providerResNo" | "requesterResNo">, w: UnassignedWarning) {
  return {
    reservationId: b.transactionId,
    requesterResNo: b.requesterResNo,
    providerResNo: b.providerResNo,
    pickupAt: isoAt(w.pickupAt),
    assignBy: isoAt(w.assignBy),
    minutesLeft: minutesLeft(w),
  };
}

/**
 * What the watch does to a booking whose deadline passed without a chauffeur, in its transaction: it records the
 * warning (so it is never due again for this deadline), a changeLogs line says so, and UNASSIGNED_WARNING is announced
 * to both parties. Nothing when the booking is no longer due (assigned, cancelled, its pickup moved later meanwhile).
 */
export function decideUnassignedWarning(current: Booking | undefined, now: number): Decision<boolean> {
  const b = current;
  const due = b ? assignDue(b) : null;
  if (!b || due === null || due > now) return { result: false };
  const warning: UnassignedWarning = { at: now, assignBy: due, pickupAt: b.pickupDate };
  const changeDesc =
    `unassigned warning: no chauffeur assigned by ${isoAt(due)}; pickup at ${isoAt(b.pickupDate)}, ` +
    `${minutesLeft(warning)} minutes left`;
  const booking: Booking = {
    ...b,
    unassignedWarning: warning,
    updatedAt: now,
    changeLogs: [...b.changeLogs, { timestamp: isoAt(now), changeSource: "exchange", changeDesc }],
  };
  const event: BookingEvent = {
    type: "UNASSIGNED_WARNING",
    transactionId: b.transactionId,
    actor: "provider",
    at: now,
    status: b.status,
    unassigned: warning,
    // The exchange's warning: never refused for a company's store bound.
    byExchange: true,
  };
  return { result: true, write: { booking, events: [event] } };
}
