import { ConflictError } from "../errors";
import { isoAt, type Booking, type BookingEvent } from "../trips/booking";
import { canTransition } from "../trips/lifecycle";
import type { Decision } from "../trips/ports";
import { reservationIdOf } from "./partner-message";

const source = "exchange:delivery";

function event(b: Booking, type: BookingEvent["type"], at: number, previousStatus?: Booking["status"]): BookingEvent {
  return { type, transactionId: b.transactionId, actor: "provider", at, status: b.status, ...(previousStatus ? { previousStatus } : {}) };
}

/**
 * The provider's endpoint took a message: record it, and keep the provider's reservation number when the
 * reply carried one (it becomes providerResNo / targetResNo).
 */
export function recordDelivered(b: Booking | undefined, reply: unknown, eventType: string, at: number): Decision<void> {
  if (!b) return { result: undefined };
  const reservationId = reservationIdOf(reply);
  const newNumber = reservationId !== undefined && reservationId !== b.providerResNo;
  const desc = `delivered ${eventType} to the provider${newNumber ? `; providerResNo ${b.providerResNo ?? "none"} → ${reservationId}` : ""}`;
  const next: Booking = {
    ...b,
    ...(newNumber ? { providerResNo: reservationId! } : {}),
    updatedAt: at,
    changeLogs: [...b.changeLogs, { timestamp: isoAt(at), changeSource: source, changeDesc: desc }],
  };
  return { result: undefined, write: { booking: next, events: newNumber ? [event(next, "DELIVERED", at)] : [] } };
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
