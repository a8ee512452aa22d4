import type { Booking, BookingEvent } from "./booking";
import { bookingView } from "./booking-view";
import { asCurrentProvider, seenBy } from "./offer-views";
import { moveView } from "./flights";
import { unassignedView } from "./assignment-deadline";
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
  OFFER_WITHDRAWN: "booking.withdrawn",
  PICKUP_MOVED: "booking.pickup_moved",
  PICKUP_MOVE_BLOCKED: "booking.pickup_move_blocked",
  ARRIVED: "booking.arrived",
  FARE_FINAL: "booking.fare_final",
  UNASSIGNED_WARNING: "booking.unassigned_warning",
};

/** Every type a booking event is announced with (webhooks and event streams). */
export const BOOKING_EVENT_TYPES: readonly string[] = [...new Set(Object.values(WEBHOOK_TYPE))];

/** The webhook event type a change is announced with: its first (main) event's. */
export function bookingEventType(events: BookingEvent[]): string {
  return WEBHOOK_TYPE[events[0].type];
}

/** Who a change's event body is for: the requester, or the booking's current provider (docs/terms.md#who-sees-what). */
export type EventReader = "requester" | "provider";

/**
 * A change's event as webhooks (and event streams) carry it: the booking's new state, typed by the change. The
 * requester's says who had the booking, who has it now, why, the price before and after and whether the terms changed
 * (booking.reassigned, docs/terms.md#each-provider-its-own-terms); the provider's shows only its own offer, and a move
 * to it is a plain booking.created (docs/terms.md#who-sees-what).
 */
export function bookingEventBody(
  eventId: string,
  events: BookingEvent[],
  booking: Booking,
  location: ReturnType<typeof positionView> | undefined,
  reader: EventReader = "requester",
) {
  return { ...bookingEventHead(eventId, events, reader, booking), data: bookingView(eventBooking(booking, reader), location) };
}

/** The booking a reader's body of a change shows (bookingEventBody's `data`, before its view). */
export function eventBooking(booking: Booking, reader: EventReader): Booking {
  return reader === "provider" ? asCurrentProvider(booking) : booking;
}

/** bookingEventBody without its `data` (which comes last): the members a reader's body of a change starts with. */
export function bookingEventHead(eventId: string, events: BookingEvent[], reader: EventReader, booking: Booking) {
  const move = events[0].move;
  // A pickup moved by its flight says from what to what and why (docs/flights.md#the-pickup-follows-the-flight), to both parties.
  const moved = events[0].pickupMove ? moveView(events[0].pickupMove) : {};
  // No chauffeur by the deadline (docs/terms.md#the-assignment-deadline): the numbers, pickup, deadline, minutes left.
  const warned = events[0].unassigned ? unassignedView(booking, events[0].unassigned) : {};
  if (reader === "provider") return { eventId, type: move ? WEBHOOK_TYPE.TRIP_SENT : bookingEventType(events), createdAt: events[0].at, ...moved, ...warned };
  return { eventId, type: bookingEventType(events), createdAt: events[0].at, ...(move ? move : {}), ...moved, ...warned };
}

/** Whether the current provider's body of a change differs from the requester's (it hides a move, a fallback or earlier offers). */
export function providerBodyDiffers(events: BookingEvent[], booking: Booking): boolean {
  return events[0].move !== undefined || asCurrentProvider(booking) !== booking;
}

/**
 * booking.withdrawn (docs/terms.md#who-sees-what): to the provider whose offer `e` ended, on its event stream and
 * webhook — why, and its own offer as its read shows it (nothing of the provider after it).
 */
export function withdrawnEventBody(eventId: string, e: BookingEvent, booking: Booking) {
  return { ...withdrawnEventHead(eventId, e), data: bookingView(withdrawnBooking(e, booking)) };
}

/** withdrawnEventBody without its `data` (which comes last). */
export function withdrawnEventHead(eventId: string, e: BookingEvent) {
  return { eventId, type: WEBHOOK_TYPE.OFFER_WITHDRAWN, createdAt: e.at, reason: e.formerProvider!.reason };
}

/** The booking booking.withdrawn shows the provider whose offer `e` ended: its own offer, as its read shows it. */
export function withdrawnBooking(e: BookingEvent, booking: Booking): Booking {
  return seenBy(booking, e.formerProvider!.netid)?.booking ?? booking;
}
