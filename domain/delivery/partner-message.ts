import { isoAt, type Booking, type TripAction } from "../trips/booking";
import type { LuggageMode } from "./integration";
import { partnerCopy } from "./luggage";
import type { Fee } from "../trips/booking";
import { amountParts } from "../money";
import { partnerAmountsInCurrency, TWO_DECIMAL_UNITS, type MinorUnits } from "../trips/booking-amounts";
import { ANY_DECIMALS, checkFees, numberText } from "../trips/trip-fields";
import { affiliateParties, RESERVED_TRIP_NAMES, shownExtras } from "../trips/reserved-names";

/**
 * The body POSTed to a provider's delivery endpoint: the same shape as sendTrip —
 * reservation fields at the top level, `affiliateReservation`, `transactionId` — plus the `eventId` a
 * receiver de-duplicates by. Luggage follows the provider's setting (spec rule 3); the booking is not changed.
 * Everything the requester sent travels: GNet's fields (stops, notes, phones…) and members no schema names.
 * `fees` and `totalAmount` carry the booked price (a converted quote's chosen option).
 * `vehicleType`, when given, is the provider's own code for the requester's preferred vehicle type; `reason`, why the
 * exchange cancels the provider's offer.
 */
export function partnerTripMessage(booking: Booking, action: TripAction, luggage: LuggageMode, eventId: string, vehicleType?: string, reason?: string) {
  const { extra, ...trip } = partnerCopy(booking.trip, luggage);
  return {
    // Members no schema names travel with the trip; a requester's copy of a name the exchange or the provider
    // writes (chauffeur, vehicle, providerResNo…) travels only under requesterExtra, never in that place.
    ...shownExtras(extra, RESERVED_TRIP_NAMES),
    ...trip,
    ...(vehicleType !== undefined ? { preferredVehicleType: vehicleType } : {}),
    status: booking.status,
    // The price agreed in the exchange (a converted quote's option) travels with the fee lines.
    totalAmount: booking.totalAmount,
    // The terms the booking was made under (docs/terms.md#policies); a late cancel's fee line is among the fees.
    ...(booking.terms !== undefined ? { terms: booking.terms } : {}),
    // What you would owe the requester if you gave the booking back after accepting (docs/settlement.md#give-back-recovery).
    ...(booking.giveBackRecovery !== undefined ? { giveBackRecovery: booking.giveBackRecovery } : {}),
    ...(booking.submitMode !== undefined ? { submitMode: booking.submitMode } : {}),
    affiliateReservation: {
      ...affiliateParties(booking),
      action,
      status: booking.status,
      notes: booking.notes,
    },
    transactionId: booking.transactionId,
    // Until when the provider may accept (docs/terms.md#the-acceptance-deadline-acceptby): CONFIRMED by then, or the offer lapses.
    ...(booking.acceptBy !== undefined && action !== "CANCEL" ? { acceptBy: isoAt(booking.acceptBy) } : {}),
    // Why the exchange took the offer back (docs/terms.md#who-sees-what): OFFER_LAPSED when acceptBy passed.
    ...(reason !== undefined ? { reason } : {}),
    eventId,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const MAX_MESSAGE = 500;

/** A partner's reservation number from its JSON reply, when it gave one (string or number, bounded). */
export function reservationIdOf(reply: unknown): string | undefined {
  if (!isObject(reply)) return undefined;
  const value = reply.reservationId;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && value.trim() !== "" && value.length <= 100) return value.trim();
  return undefined;
}

/**
 * Why a partner refused a trip in a 2xx reply, GNet style: `{"success": false, "message": …}`.
 * Undefined when the reply does not refuse it. The message is bounded; it is the partner's own words.
 */
export function partnerRefusal(reply: unknown): string | undefined {
  if (!isObject(reply) || (reply.success !== false && reply.success !== "false")) return undefined;
  const message = typeof reply.message === "string" ? reply.message.trim().slice(0, MAX_MESSAGE) : "";
  return message === "" ? "the partner answered success: false without a message" : message;
}

/** What an accepting partner's reply sets on the booking: its reservation number, the price and the fee lines. */
export interface PartnerTerms {
  reservationId?: string;
  totalAmount?: string;
  fees?: Fee[];
}

/**
 * The terms of an accepting reply; a malformed amount or fee list is ignored (the delivery itself succeeded).
 * Amounts take the booking's currency's minor unit (the reply's fee lines' currency, else `bookingFees`'),
 * rounded half up as quotes are priced: JPY 5000.4 → "5000"; without a currency two decimals.
 */
export function partnerTermsOf(reply: unknown, bookingFees: readonly Fee[] = [], units: MinorUnits = TWO_DECIMAL_UNITS): PartnerTerms {
  if (!isObject(reply)) return {};
  const terms: PartnerTerms = {};
  const reservationId = reservationIdOf(reply);
  if (reservationId !== undefined) terms.reservationId = reservationId;
  const amount = reply.totalAmount;
  if ((typeof amount === "string" && amount.length <= 32) || typeof amount === "number") {
    const total = numberText(amount);
    if (amountParts(total)) terms.totalAmount = total;
  }
  if (Array.isArray(reply.fees) && reply.fees.length <= MAX_FEE_LINES && reply.fees.every(isObject)) {
    let ok = true;
    const fees = checkFees(reply.fees, "fees", () => (ok = false), ANY_DECIMALS);
    if (ok) terms.fees = fees;
  }
  return { ...terms, ...partnerAmountsInCurrency({ totalAmount: terms.totalAmount, fees: terms.fees }, bookingFees, units) };
}

const MAX_FEE_LINES = 50;
