import { ConflictError } from "../errors";
import { isoAt, type Booking, type BookingEvent } from "../trips/booking";
import { canTransition, TERMINAL_STATUSES } from "../trips/lifecycle";
import type { Decision } from "../trips/decision";
import { partnerTermsOf } from "./partner-message";
import { canonicalJson } from "../shared/canonical-json";
import { PROVIDER_RES_NO_IN_USE } from "../trips/provider-update";
import { providerFare } from "../trips/fare-lines";
import type { OutstandingDeliveries } from "./ports";
import type { MinorUnits } from "../trips/booking-amounts";

const source = "exchange:delivery";
/** A transactionErrors code: the provider's reply carried a price that breaks the sum of the lines, not taken. */
export const FARE_NOT_TAKEN = "FARE_NOT_TAKEN";

function event(b: Booking, type: BookingEvent["type"], at: number, previousStatus?: Booking["status"]): BookingEvent {
  return { type, transactionId: b.transactionId, actor: "provider", at, status: b.status, ...(previousStatus ? { previousStatus } : {}) };
}

/**
 * The provider's endpoint took a message: record it, and keep what its reply carried:
 * `reservationId` becomes providerResNo / targetResNo, `totalAmount` the booking's price, `fees` its fee lines
 * (in the booking's currency's minor unit, `units`).
 * A delivery that was failing has recovered: affiliateReservation.status is the booking's own status again
 * (and a booking still FAILED goes back to BOOKING_REQUEST).
 */
export function recordDelivered(
  b: Booking | undefined,
  reply: unknown,
  eventType: string,
  at: number,
  numberTaken = false,
  units?: MinorUnits,
): Decision<void> {
  if (!b) return { result: undefined };
  const terms = partnerTermsOf(reply, b.trip.fees, units);
  const changes: string[] = [];
  const next: Booking = { ...b, updatedAt: at };
  const recovered = b.deliveryFailure !== undefined || b.status === "FAILED";
  if (recovered) {
    delete next.deliveryFailure;
    if (b.status === "FAILED" && canTransition("FAILED", "BOOKING_REQUEST")) next.status = "BOOKING_REQUEST";
    changes.push(`affiliateReservation.status FAILED → ${next.status}${next.status !== b.status ? `; status ${b.status} → ${next.status}` : ""}`);
  }
  const recoveryLines = changes.length;
  if (numberTaken && terms.reservationId !== undefined) {
    // Another live booking of the provider holds the number: the delivery stands, the number is not taken.
    next.transactionErrors = [
      ...b.transactionErrors,
      {
        timestamp: isoAt(at),
        errCode: PROVIDER_RES_NO_IN_USE,
        errDesc: `the provider's reply gave reservationId ${terms.reservationId}, which another of its live bookings holds: not taken`,
      },
    ];
  } else if (terms.reservationId !== undefined && terms.reservationId !== b.providerResNo) {
    changes.push(`providerResNo ${b.providerResNo ?? "none"} → ${terms.reservationId}`);
    next.providerResNo = terms.reservationId;
  }
  // The reply's price by the provider's own rule (docs/terms.md#the-price-is-the-sum-of-its-lines): one that rewrites
  // a quoted line, or whose total is not the sum of the lines, is not taken (the delivery stands; the errors say why).
  // A final booking's price no longer changes.
  const priced = (terms.totalAmount !== undefined || terms.fees !== undefined) && !TERMINAL_STATUSES.has(b.status);
  const fare = priced ? providerFare(b, terms) : undefined;
  if (fare && fare.errors.length > 0)
    next.transactionErrors = [
      ...(next.transactionErrors ?? b.transactionErrors),
      {
        timestamp: isoAt(at),
        errCode: FARE_NOT_TAKEN,
        errDesc: `the provider's reply priced the booking against its lines, not taken: ${fare.errors.map((e) => `${e.field} ${e.message}`).join("; ")}`,
      },
    ];
  else if (fare) {
    changes.push(...fare.described);
    if (fare.totalAmount !== undefined) next.totalAmount = fare.totalAmount;
    if (fare.fees !== undefined && canonicalJson(fare.fees) !== canonicalJson(b.trip.fees)) next.trip = { ...b.trip, fees: fare.fees };
  }
  const desc = `delivered ${eventType} to the provider${changes.length ? `; ${changes.join("; ")}` : ""}`;
  next.changeLogs = [...b.changeLogs, { timestamp: isoAt(at), changeSource: source, changeDesc: desc }];
  const events: BookingEvent[] = [];
  if (recovered) events.push(event(next, "DELIVERY_RECOVERED", at, b.status));
  if (changes.length > recoveryLines) events.push(event(next, "DELIVERED", at));
  return { result: undefined, write: { booking: next, events } };
}

/**
 * A delivery attempt failed: every failure appends a transactionErrors entry at once. The first failure of a
 * delivery that was going well marks the affiliate reservation FAILED with the reason (the booking's lifecycle
 * status is left alone: automatic retries go on); the final one moves a BOOKING_REQUEST to FAILED, which a
 * retry undoes. Both moves are logged and announced; the failures in between only refresh the reason.
 */
export function recordDeliveryFailure(b: Booking | undefined, error: string, at: number, final: boolean): Decision<void> {
  if (!b) return { result: undefined };
  const errors = [...b.transactionErrors, { timestamp: isoAt(at), errCode: final ? "DELIVERY_FAILED" : "DELIVERY_ATTEMPT_FAILED", errDesc: error }];
  if (!final) {
    const next: Booking = { ...b, updatedAt: at, transactionErrors: errors, deliveryFailure: `Delivery failed, retrying: ${error}` };
    if (b.deliveryFailure !== undefined) return { result: undefined, write: { booking: next, events: [] } };
    next.changeLogs = [
      ...b.changeLogs,
      {
        timestamp: isoAt(at),
        changeSource: source,
        changeDesc: `delivery to the provider failed; affiliateReservation.status ${b.status} → FAILED (retrying automatically)`,
      },
    ];
    return { result: undefined, write: { booking: next, events: [event(next, "DELIVERY_FAILED", at, b.status)] } };
  }
  const toFailed = canTransition(b.status, "FAILED");
  const next: Booking = {
    ...b,
    status: toFailed ? "FAILED" : b.status,
    deliveryFailure: `Delivery failed: ${error}`,
    updatedAt: at,
    transactionErrors: errors,
    changeLogs: [
      ...b.changeLogs,
      {
        timestamp: isoAt(at),
        changeSource: source,
        changeDesc:
          "delivery to the provider failed for good" +
          (b.deliveryFailure === undefined ? `; affiliateReservation.status ${b.status} → FAILED` : "") +
          (toFailed ? `; status ${b.status} → FAILED` : ""),
      },
    ],
  };
  return { result: undefined, write: { booking: next, events: [event(next, "DELIVERY_FAILED", at, b.status)] } };
}

/**
 * retryTransaction: a booking whose delivery is failing or failed, or still queued, is delivered again now;
 * FAILED goes back to BOOKING_REQUEST (the lifecycle's retry). affiliateReservation.status stays FAILED until an
 * attempt succeeds — unless nothing is left to deliver, which ends it. 409 when nothing is pending or failing.
 */
export function retryDelivery(b: Booking, outstanding: OutstandingDeliveries, actorUid: string, at: number): Decision<void> {
  const queued = outstanding.failed || outstanding.pending;
  if (!queued && b.deliveryFailure === undefined && b.status !== "FAILED")
    throw new ConflictError("No pending or failing delivery to retry for this booking", "NOTHING_TO_RETRY");
  const back = b.status === "FAILED";
  const next: Booking = {
    ...b,
    status: back ? "BOOKING_REQUEST" : b.status,
    updatedAt: at,
    changeLogs: [
      ...b.changeLogs,
      {
        timestamp: isoAt(at),
        changeSource: `retry:${actorUid}`,
        changeDesc: `delivery ${queued ? "retried now" : "has nothing left to send"}${back ? "; status FAILED → BOOKING_REQUEST" : ""}`,
      },
    ],
  };
  if (!queued) delete next.deliveryFailure;
  return { result: undefined, write: { booking: next, events: [event(next, "DELIVERY_RETRIED", at, b.status)] } };
}
