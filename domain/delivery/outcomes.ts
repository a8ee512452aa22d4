import { ConflictError } from "../errors";
import { isoAt, type Booking, type BookingEvent } from "../trips/booking";
import { canTransition } from "../trips/lifecycle";
import type { Decision } from "../trips/ports";
import { partnerTermsOf } from "./partner-message";
import { canonicalJson } from "../trips/decisions";
import { PROVIDER_RES_NO_IN_USE } from "../trips/provider-update";

const source = "exchange:delivery";

function event(b: Booking, type: BookingEvent["type"], at: number, previousStatus?: Booking["status"]): BookingEvent {
  return { type, transactionId: b.transactionId, actor: "provider", at, status: b.status, ...(previousStatus ? { previousStatus } : {}) };
}

/**
 * The provider's endpoint took a message: record it, and keep what its reply carried:
 * `reservationId` becomes providerResNo / targetResNo, `totalAmount` the booking's price, `fees` its fee lines.
 */
export function recordDelivered(b: Booking | undefined, reply: unknown, eventType: string, at: number, numberTaken = false): Decision<void> {
  if (!b) return { result: undefined };
  const terms = partnerTermsOf(reply);
  const changes: string[] = [];
  const next: Booking = { ...b, updatedAt: at };
  if (numberTaken && terms.reservationId !== undefined) {
    // Another live booking of the provider holds the number: the delivery stands, the number is not taken.
    next.transactionErrors = [
      ...b.transactionErrors,
      { timestamp: isoAt(at), errCode: PROVIDER_RES_NO_IN_USE, errDesc: `the provider's reply gave reservationId ${terms.reservationId}, which another of its live bookings holds: not taken` },
    ];
  } else if (terms.reservationId !== undefined && terms.reservationId !== b.providerResNo) {
    changes.push(`providerResNo ${b.providerResNo ?? "none"} → ${terms.reservationId}`);
    next.providerResNo = terms.reservationId;
  }
  if (terms.totalAmount !== undefined && terms.totalAmount !== b.totalAmount) {
    changes.push(`totalAmount ${b.totalAmount ?? "(none)"} → ${terms.totalAmount}`);
    next.totalAmount = terms.totalAmount;
  }
  if (terms.fees !== undefined && canonicalJson(terms.fees) !== canonicalJson(b.trip.fees)) {
    changes.push(`fees changed (${b.trip.fees.length} → ${terms.fees.length} line(s))`);
    next.trip = { ...b.trip, fees: terms.fees };
  }
  const desc = `delivered ${eventType} to the provider${changes.length ? `; ${changes.join("; ")}` : ""}`;
  next.changeLogs = [...b.changeLogs, { timestamp: isoAt(at), changeSource: source, changeDesc: desc }];
  return { result: undefined, write: { booking: next, events: changes.length ? [event(next, "DELIVERED", at)] : [] } };
}

/**
 * A delivery attempt failed: every failure appends a transactionErrors entry at once; the final one marks the
 * affiliate reservation FAILED with the reason (and moves a BOOKING_REQUEST to FAILED, which a retry undoes).
 */
export function recordDeliveryFailure(b: Booking | undefined, error: string, at: number, final: boolean): Decision<void> {
  if (!b) return { result: undefined };
  const errors = [...b.transactionErrors, { timestamp: isoAt(at), errCode: final ? "DELIVERY_FAILED" : "DELIVERY_ATTEMPT_FAILED", errDesc: error }];
  if (!final) return { result: undefined, write: { booking: { ...b, updatedAt: at, transactionErrors: errors }, events: [] } };
  const toFailed = canTransition(b.status, "FAILED");
  const next: Booking = {
    ...b,
    status: toFailed ? "FAILED" : b.status,
    deliveryFailure: `Delivery failed: ${error}`,
    updatedAt: at,
    transactionErrors: errors,
    changeLogs: [
      ...b.changeLogs,
      { timestamp: isoAt(at), changeSource: source, changeDesc: `delivery to the provider failed for good${toFailed ? `; status ${b.status} → FAILED` : ""}` },
    ],
  };
  return { result: undefined, write: { booking: next, events: [event(next, "DELIVERY_FAILED", at, b.status)] } };
}

/**
 * retryTransaction: a booking whose delivery failed is queued again; FAILED goes back to BOOKING_REQUEST
 * (the lifecycle's retry). 409 when there is nothing to retry.
 */
export function retryDelivery(b: Booking, hasFailedMessages: boolean, actorUid: string, at: number): Decision<void> {
  if (!hasFailedMessages && b.deliveryFailure === undefined) throw new ConflictError("No failed delivery to retry for this booking", "NOTHING_TO_RETRY");
  const back = b.status === "FAILED";
  const next: Booking = {
    ...b,
    status: back ? "BOOKING_REQUEST" : b.status,
    deliveryFailure: undefined,
    updatedAt: at,
    changeLogs: [...b.changeLogs, { timestamp: isoAt(at), changeSource: `retry:${actorUid}`, changeDesc: `delivery queued again${back ? "; status FAILED → BOOKING_REQUEST" : ""}` }],
  };
  delete next.deliveryFailure;
  return { result: undefined, write: { booking: next, events: [event(next, "DELIVERY_RETRIED", at, b.status)] } };
}
