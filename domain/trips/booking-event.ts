import type { Booking, BookingEvent } from "./booking";
import { bookingView } from "./booking-view";
import type { positionView } from "../tracking/position";

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
  DELIVERY_RECOVERED: "booking.delivery_recovered",
  LOCATION_CHANGED: "booking.location_changed",
  REASSIGNED: "booking.reassigned",
  OFFER_WITHDRAWN: "booking.cancelled",
};

/** Every type a booking event is announced with (webhooks and event streams). */
export const BOOKING_EVENT_TYPES: readonly string[] = [...new Set(Object.values(WEBHOOK_TYPE))];

/** The webhook event type a change is announced with: its first (main) event's. */
export function bookingEventType(events: BookingEvent[]): string {
  return WEBHOOK_TYPE[events[0].type];
}

/** A change's event as webhooks (and event streams) carry it: the booking's new state, typed by the change. */
export function bookingEventBody(eventId: string, events: BookingEvent[], booking: Booking, location: ReturnType<typeof positionView> | undefined) {
  // booking.reassigned says who had the booking, who has it now and why (docs/terms.md#the-cascade-fallback).
  const move = events[0].move;
  return { eventId, type: bookingEventType(events), createdAt: events[0].at, ...(move ? move : {}), data: bookingView(booking, location) };
}
