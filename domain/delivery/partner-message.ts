import type { Booking, TripAction } from "../trips/booking";
import type { LuggageMode } from "./integration";
import { partnerCopy } from "./luggage";

/**
 * The body POSTed to a provider's delivery endpoint (CONTRACT §10.14): the same shape as sendTrip —
 * reservation fields at the top level, `affiliateReservation`, `transactionId` — plus the `eventId` a
 * receiver de-duplicates by. Luggage follows the provider's setting (spec rule 3); the booking is not changed.
 */
export function partnerTripMessage(booking: Booking, action: TripAction, luggage: LuggageMode, eventId: string) {
  const trip = partnerCopy(booking.trip, luggage);
  return {
    ...trip,
    affiliateReservation: {
      requesterId: booking.requesterId,
      requesterResNo: booking.requesterResNo,
      providerId: booking.providerId,
      ...(booking.providerResNo !== null ? { providerResNo: booking.providerResNo } : {}),
      action,
      notes: booking.notes,
    },
    transactionId: booking.transactionId,
    eventId,
  };
}

/** A partner's reservation number from its JSON reply, when it gave one (string or number, bounded). */
export function reservationIdOf(reply: unknown): string | undefined {
  if (!reply || typeof reply !== "object") return undefined;
  const value = (reply as Record<string, unknown>).reservationId;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && value.trim() !== "" && value.length <= 100) return value.trim();
  return undefined;
}
