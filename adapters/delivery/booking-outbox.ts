import type { Booking, BookingEvent, TripAction } from "../../domain/trips/booking";
import { partnerTripMessage } from "../../domain/delivery/partner-message";
import type { SqliteIntegrationRepository, SqliteOutbox } from "../sqlite/delivery-repositories";
import type { SqlitePartnershipRepository } from "../sqlite/partnership-repository";
import { translateVehicleType } from "../../domain/partners/partnership";
import type { NewOutboxMessage } from "../../domain/delivery/ports";
import { bookingView } from "../http/booking-view";
import { gnetCallback } from "../../domain/delivery/gnet-callback";
import type { PositionStore } from "../../domain/tracking/position";
import { shownPosition } from "../../domain/usecases/track-chauffeur";

/** What the provider's endpoint is sent for each requester action (CONTRACT §8: NEW/UPDATE/CANCEL/QUOTE). */
const TO_PROVIDER: Partial<Record<BookingEvent["type"], { action: TripAction; eventType: string }>> = {
  TRIP_SENT: { action: "NEW", eventType: "trip.new" },
  QUOTE_REQUESTED: { action: "NEW", eventType: "quote.new" },
  TRIP_UPDATED: { action: "UPDATE", eventType: "trip.update" },
  TRIP_CANCELLED: { action: "CANCEL", eventType: "trip.cancel" },
};

/** The webhook event type the requester receives for each booking event. */
const WEBHOOK_TYPE: Record<BookingEvent["type"], string> = {
  TRIP_SENT: "booking.created",
  QUOTE_REQUESTED: "quote.created",
  TRIP_UPDATED: "booking.updated",
  TRIP_CANCELLED: "booking.cancelled",
  STATUS_CHANGED: "booking.status_changed",
  PROVIDER_DETAILS_CHANGED: "booking.details_changed",
  DELIVERED: "booking.provider_reference",
  DELIVERY_FAILED: "booking.delivery_failed",
  DELIVERY_RETRIED: "booking.delivery_retried",
  LOCATION_CHANGED: "booking.location_changed",
};

/** What the messages of a change are made from, all read synchronously inside the change's transaction. */
export interface OutboxSources {
  integrations: SqliteIntegrationRepository;
  partnerships: SqlitePartnershipRepository;
  positions: PositionStore;
}

/** The outbox messages one booking change produces, with the time each is first due. */
export function bookingOutboxMessages(sources: OutboxSources, events: BookingEvent[], booking: Booking): Array<{ message: NewOutboxMessage; at: number }> {
  if (events.length === 0) return [];
  const { integrations, partnerships, positions } = sources;
  const provider = integrations.getSync(booking.providerId);
  const requester = integrations.getSync(booking.requesterId);
  const out: Array<{ message: NewOutboxMessage; at: number }> = [];
  // The provider reads the requester's preferred vehicle type in its own words when it mapped it for this partner.
  const preferred = booking.trip.preferredVehicleType;
  const vehicleType = preferred && provider?.deliveryUrl ? translateVehicleType(partnerships.activeVehicleTypesSync(booking.providerId, booking.requesterId), preferred) : undefined;
  for (const e of events) {
    const delivery = TO_PROVIDER[e.type];
    if (delivery && provider?.deliveryUrl) {
      const eventId = crypto.randomUUID();
      const body = JSON.stringify(partnerTripMessage(booking, delivery.action, provider.luggage, eventId, vehicleType));
      out.push({ message: { eventId, channel: "delivery", eventType: delivery.eventType, transactionId: booking.transactionId, targetNetid: booking.providerId, url: provider.deliveryUrl, body }, at: e.at });
    }
  }
  // One change, one webhook: the booking's new state, typed by the change's first (main) event; GNet-shaped
  // listeners get GNet's callback body (the event id and type travel in the headers either way).
  if (requester?.webhookUrl) {
    const eventId = crypto.randomUUID();
    const type = WEBHOOK_TYPE[events[0].type];
    const location = shownPosition(positions, booking, "requester");
    const body = JSON.stringify(
      requester.webhookFormat === "gnet" ? gnetCallback(booking, location) : { eventId, type, createdAt: events[0].at, data: bookingView(booking, location) },
    );
    out.push({ message: { eventId, channel: "webhook", eventType: type, transactionId: booking.transactionId, targetNetid: booking.requesterId, url: requester.webhookUrl, body }, at: events[0].at });
  }
  return out;
}

/**
 * The booking repository's event sink: inside the transaction of every booking change, writes the outbox rows
 * that announce it — a delivery to the provider's endpoint for what the requester sent, and a webhook with the
 * booking's new state to the requester. They commit or roll back together with the booking.
 */
export function bookingOutboxSink(outbox: SqliteOutbox, sources: OutboxSources, wake: () => void) {
  return (events: BookingEvent[], booking: Booking): void => {
    const messages = bookingOutboxMessages(sources, events, booking);
    for (const { message, at } of messages) outbox.enqueue(message, at);
    if (messages.length > 0) wake();
  };
}
