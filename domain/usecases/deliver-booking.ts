import { NotFoundError, TooManyRequestsError } from "../errors";
import type { Caller, Clock } from "../ports";
import { roleOf, type Booking, type BookingEvent, type TripAction } from "../trips/booking";
import { bookingEventBody, bookingEventType, withdrawnEventBody } from "../trips/booking-event";
import { asCurrentProvider, seenBy } from "../trips/offer-views";
import { OFFER_LAPSED } from "../trips/offers";
import { bookingNotFound } from "../trips/decisions";
import type { BookingRepository, ChangeAnnouncer } from "../trips/ports";
import { positionView, visiblePosition, type PositionLookup } from "../tracking/position";
import type { ActiveVehicleTypes } from "../partners/ports";
import { translateVehicleType } from "../partners/partnership";
import { gnetCallback } from "../delivery/gnet-callback";
import { partnerTripMessage } from "../delivery/partner-message";
import type { MinorUnits } from "../trips/booking-amounts";
import { recordDelivered, recordDeliveryFailure, retryDelivery } from "../delivery/outcomes";
import type { AnnouncedMessage, Channel, DeliveryHooks, DeliveryRunner, IntegrationLookup, Outbox, OutboxMessage } from "../delivery/ports";
import { requireTransactionId } from "../trips/find-booking";
import type { RateBudgets } from "../rate-limit";

/**
 * Delivering bookings: every change is announced — a delivery to the provider's endpoint for what the requester
 * sent, a webhook with the booking's new state to the requester — in the change's own transaction; the worker
 * attempts each message and each outcome is recorded on the booking; a party may retry a failed delivery, a
 * requester replay a webhook, and sendTrip's WAIT awaits the first attempt.
 */

/** What the provider's endpoint is sent for each requester action. */
const TO_PROVIDER: Partial<Record<BookingEvent["type"], { action: TripAction; eventType: string }>> = {
  TRIP_SENT: { action: "NEW", eventType: "trip.new" },
  QUOTE_REQUESTED: { action: "NEW", eventType: "quote.new" },
  TRIP_UPDATED: { action: "UPDATE", eventType: "trip.update" },
  // The pickup moved by its flight: the provider is sent the trip with its new time (docs/flights.md#the-pickup-follows-the-flight).
  PICKUP_MOVED: { action: "UPDATE", eventType: "trip.update" },
  TRIP_CANCELLED: { action: "CANCEL", eventType: "trip.cancel" },
};

/** What a change's messages are made from, all read synchronously while the change is written. */
export interface AnnounceDeps {
  integrations: IntegrationLookup;
  partnerships: ActiveVehicleTypes;
  positions: PositionLookup;
  runner: Pick<DeliveryRunner, "wake">;
  newEventId: () => string;
}

/** The outbox messages one booking change produces, with the time each is first due. */
export function announcements(deps: AnnounceDeps, events: BookingEvent[], booking: Booking): AnnouncedMessage[] {
  if (events.length === 0) return [];
  const { integrations, partnerships, positions } = deps;
  const provider = integrations.getSync(booking.providerId);
  const requester = integrations.getSync(booking.requesterId);
  const out: AnnouncedMessage[] = [];
  // The provider reads the requester's preferred vehicle type in its own words when it mapped it for this partner.
  const preferred = booking.trip.preferredVehicleType;
  const vehicleType =
    preferred && provider?.deliveryUrl
      ? translateVehicleType(partnerships.activeVehicleTypesSync(booking.providerId, booking.requesterId), preferred)
      : undefined;
  for (const e of events) {
    const delivery = TO_PROVIDER[e.type];
    if (e.type === "OFFER_WITHDRAWN" && e.formerProvider) {
      out.push(...withdrawnMessages(deps, e, booking));
      continue;
    }
    if (delivery && provider?.deliveryUrl) {
      const eventId = deps.newEventId();
      const body = JSON.stringify(partnerTripMessage(booking, delivery.action, provider.luggage, eventId, vehicleType));
      out.push({
        message: {
          eventId,
          channel: "delivery",
          eventType: delivery.eventType,
          transactionId: booking.transactionId,
          targetNetid: booking.providerId,
          url: provider.deliveryUrl,
          body,
        },
        at: e.at,
      });
    }
  }
  // One change, one webhook: the booking's new state, typed by the change's first (main) event; GNet-shaped
  // listeners get GNet's callback body (the event id and type travel in the headers either way). Only to a URL
  // that answered its challenge: a booking is never POSTed to an address nobody proved is theirs.
  if (requester?.webhookUrl && requester.webhookVerifiedAt !== null) {
    const eventId = deps.newEventId();
    const type = bookingEventType(events);
    const shown = visiblePosition(booking.status, "requester", positions.lastSync(booking.transactionId));
    const location = shown ? positionView(shown) : undefined;
    const body = JSON.stringify(requester.webhookFormat === "gnet" ? gnetCallback(booking, location) : bookingEventBody(eventId, events, booking, location));
    out.push({
      message: {
        eventId,
        channel: "webhook",
        eventType: type,
        transactionId: booking.transactionId,
        targetNetid: booking.requesterId,
        url: requester.webhookUrl,
        body,
      },
      at: events[0].at,
    });
  }
  if (events[0].type === "UNASSIGNED_WARNING") out.push(...providerWarning(deps, events, booking));
  return out;
}

/**
 * A warning for both parties (docs/terms.md#the-assignment-deadline): the provider's webhook gets it too, its own view
 * of the booking, when it has a verified webhook URL and is not the requester itself.
 */
function providerWarning(deps: AnnounceDeps, events: BookingEvent[], booking: Booking): AnnouncedMessage[] {
  const provider = deps.integrations.getSync(booking.providerId);
  if (!provider?.webhookUrl || provider.webhookVerifiedAt === null || roleOf(booking, booking.requesterId) === "provider") return [];
  const eventId = deps.newEventId();
  const own = asCurrentProvider(booking);
  const body = JSON.stringify(provider.webhookFormat === "gnet" ? gnetCallback(own) : bookingEventBody(eventId, events, booking, undefined, "provider"));
  const to = { transactionId: booking.transactionId, targetNetid: booking.providerId, url: provider.webhookUrl };
  return [{ message: { eventId, channel: "webhook", eventType: bookingEventType(events), ...to, body }, at: events[0].at }];
}

/**
 * What a provider whose offer ended is sent (docs/terms.md#who-sees-what), its own copy only — nothing of the provider
 * after it: a CANCEL to its delivery endpoint when it lapsed (`reason: OFFER_LAPSED`) or could not be reached, and
 * `booking.withdrawn` to its webhook.
 */
function withdrawnMessages(deps: AnnounceDeps, e: BookingEvent, booking: Booking): AnnouncedMessage[] {
  const { netid, reason, cancel } = e.formerProvider!;
  const former = deps.integrations.getSync(netid);
  const own = seenBy(booking, netid)?.booking;
  if (!former || !own) return [];
  const out: AnnouncedMessage[] = [];
  const to = { transactionId: booking.transactionId, targetNetid: own.providerId };
  if (cancel && former.deliveryUrl) {
    const eventId = deps.newEventId();
    const copy: Booking = { ...own, status: "CANCEL", action: "CANCEL" };
    const said = reason === "ACCEPT_TIMEOUT" ? OFFER_LAPSED : reason;
    const body = JSON.stringify(partnerTripMessage(copy, "CANCEL", former.luggage, eventId, undefined, said));
    out.push({ message: { eventId, channel: "delivery", eventType: "trip.cancel", ...to, url: former.deliveryUrl, body }, at: e.at });
  }
  if (former.webhookUrl && former.webhookVerifiedAt !== null) {
    const eventId = deps.newEventId();
    const body = JSON.stringify(former.webhookFormat === "gnet" ? gnetCallback(own) : withdrawnEventBody(eventId, e, booking));
    out.push({ message: { eventId, channel: "webhook", eventType: "booking.withdrawn", ...to, url: former.webhookUrl, body }, at: e.at });
  }
  return out;
}

/** Announce a change: what the booking repository calls for every change, whichever path commits it. */
export function changeAnnouncer(deps: AnnounceDeps): ChangeAnnouncer {
  return {
    messages: (events, booking) => announcements(deps, events, booking),
    wake: () => deps.runner.wake(),
  };
}

/** A message to a provider that has since lost the booking to the cascade: its outcome changes nothing. */
function lostBy(b: Booking | undefined, m: Pick<OutboxMessage, "targetNetid">): boolean {
  return b !== undefined && b.providerId.toLowerCase() !== m.targetNetid.toLowerCase();
}

/**
 * What an attempt's outcome does to the booking, recorded in the transaction that records the attempt: a
 * delivery the provider took keeps what its reply carried; a failed one is noted, and the final failure marks
 * the booking FAILED. Webhooks change no booking.
 */
export function attemptOutcomes(deps: { onAttemptFailed?: (channel: Channel, final: boolean) => void; currencies?: MinorUnits } = {}): DeliveryHooks {
  return {
    delivered: (m, reply, at) =>
      m.channel === "delivery"
        ? {
            ref: { transactionId: m.transactionId },
            decide: (b) => (lostBy(b, m) ? { result: undefined } : recordDelivered(b, reply, m.eventType, at, false, deps.currencies)),
            numberTaken: (b) => (lostBy(b, m) ? { result: undefined } : recordDelivered(b, reply, m.eventType, at, true, deps.currencies)),
          }
        : undefined,
    attemptFailed: (m, error, at, final) => {
      deps.onAttemptFailed?.(m.channel, final);
      if (m.channel !== "delivery") return undefined;
      return { ref: { transactionId: m.transactionId }, decide: (b) => (lostBy(b, m) ? { result: undefined } : recordDeliveryFailure(b, error, at, final)) };
    },
  };
}

export interface DeliveryDeps {
  outbox: Outbox;
  bookings: Pick<BookingRepository, "findById">;
  runner: DeliveryRunner;
  clock: Clock;
  /** The outbox's time (seconds, fractional): when a replayed message is due. */
  dueNow: () => number;
  /** Where each webhook delivery's replays are counted (shared by the instances that share the outbox). */
  replays: RateBudgets;
  /** A new event id (a test event's). */
  newEventId: () => string;
}

/** Replays of one webhook delivery within an hour (a token bucket: one more every 12 minutes). */
export const WEBHOOK_REPLAYS_PER_HOUR = 5;

/**
 * Retry: a party has the booking's failed, failing or queued deliveries sent now, to the provider's current
 * endpoint, with fresh attempts; a FAILED booking goes back to BOOKING_REQUEST. 404 for anyone else, 409 when
 * nothing is pending or failing.
 */
export async function retryFailedDelivery(deps: DeliveryDeps, caller: Caller, transactionId: string): Promise<void> {
  const id = requireTransactionId(transactionId);
  const now = deps.clock.now();
  await deps.outbox.retryFailedDeliveries(
    id,
    (b, outstanding) => {
      if (!b || !roleOf(b, caller.netid)) throw bookingNotFound();
      return retryDelivery(b, outstanding, caller.uid, now);
    },
    now,
  );
  deps.runner.wake();
}

/** The caller's webhook deliveries, newest first. */
export function webhookDeliveries(
  deps: Pick<DeliveryDeps, "outbox">,
  netid: string,
  limit: number,
  offset: number,
): Promise<{ items: OutboxMessage[]; total: number }> {
  return deps.outbox.list(netid, "webhook", limit, offset);
}

/**
 * Replay: the requester has one of its webhook deliveries sent again, with the same event id; 404 for any other;
 * 429 REPLAY_LIMITED past WEBHOOK_REPLAYS_PER_HOUR replays of that delivery (each replay POSTs the whole booking).
 */
export async function replayWebhook(deps: DeliveryDeps, netid: string, deliveryId: string): Promise<OutboxMessage> {
  const id = /^\d{1,15}$/.test(deliveryId) ? Number(deliveryId) : NaN;
  const message = Number.isSafeInteger(id) ? await deps.outbox.get(id) : undefined;
  if (!message || message.channel !== "webhook" || message.targetNetid !== netid) throw new NotFoundError("No such webhook delivery", "DELIVERY_NOT_FOUND");
  const budget = await deps.replays.take(`webhookReplay:${message.id}`, WEBHOOK_REPLAYS_PER_HOUR, 3600, deps.clock.now());
  if (!budget.allowed)
    throw new TooManyRequestsError(
      budget.retryAfter,
      `This delivery was replayed ${WEBHOOK_REPLAYS_PER_HOUR} times within the hour; retry in ${budget.retryAfter} s`,
      "REPLAY_LIMITED",
    );
  await deps.outbox.requeue(message.id, deps.dueNow());
  deps.runner.wake();
  return (await deps.outbox.get(message.id))!;
}

/** How long `submitMode: WAIT` waits for the provider's answer: the 10 s partner timeout plus margin. */
export const WAIT_FOR_DELIVERY_MS = 12_000;

/** How often WAIT reads the booking while it waits for an on-exchange provider's own update. */
const PROVIDER_UPDATE_POLL_MS = 100;

/** What submitMode WAIT adds to sendTrip's answer once the provider answered. */
export interface WaitOutcome {
  booking: Booking | undefined;
  /** Why the first attempt failed (the partner refused, timed out, answered an error), when it did. */
  deliveryError?: string;
}

/** A booking whose provider has yet to give its reservation number, as long as it may still give one. */
function awaitsProviderNumber(b: Booking): boolean {
  return b.providerResNo === null && b.trip.reservationType !== "QUOTE" && (b.status === "BOOKING_REQUEST" || b.status === "PENDING");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Await the provider's answer (submitMode WAIT), bounded by `timeoutMs`. A provider with a delivery endpoint
 * answers in its reply: the first attempt to deliver the booking's newest message is awaited, then the booking
 * as that attempt left it (the provider's reservation number, totalAmount and fees from its reply) and, when the
 * attempt failed, why. A provider working on the exchange itself (the sandbox included) answers with its own
 * update: the booking is read until that sets providerResNo, the booking leaves BOOKING_REQUEST/PENDING, or the
 * wait ends.
 */
export async function awaitDelivery(
  deps: DeliveryDeps,
  transactionId: string,
  timeoutMs = WAIT_FOR_DELIVERY_MS,
  pause: (ms: number) => Promise<void> = sleep,
): Promise<WaitOutcome> {
  const message = await deps.outbox.latest(transactionId, "delivery");
  if (!message) {
    let booking = await deps.bookings.findById(transactionId);
    for (let waited = 0; booking && awaitsProviderNumber(booking) && waited < timeoutMs; waited += PROVIDER_UPDATE_POLL_MS) {
      await pause(PROVIDER_UPDATE_POLL_MS);
      booking = await deps.bookings.findById(transactionId);
    }
    return { booking };
  }
  let attempt: OutboxMessage | undefined = message;
  if (message.status === "pending" && message.attempts === 0) {
    attempt = await deps.runner.waitForAttempt(message.eventId, timeoutMs, async () => {
      const now = await deps.outbox.get(message.id);
      return now && (now.attempts > 0 || now.status !== "pending") ? now : undefined;
    });
  }
  const failed = attempt && attempt.status !== "delivered" && attempt.attempts > 0 && attempt.lastError;
  return { booking: await deps.bookings.findById(transactionId), ...(failed ? { deliveryError: attempt!.lastError! } : {}) };
}
