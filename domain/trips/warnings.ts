/**
 * A warning in sendTrip's answer (status 200): something the caller should know that did not stop the request.
 * PICKUP_NOT_LOCATED (a booking whose pickup could not be placed), NO_VEHICLE_NEAR_PICKUP (a quote no vehicle
 * of the provider serves), NO_VEHICLE_FITS_TRIP (serving vehicles, none seating the passengers and luggage),
 * OTHER_CURRENCIES_LEFT_OUT (options priced in other currencies than the quote's, counted), PICKUP_CITY_AMBIGUOUS
 * (the pickup's city matched several places of a similar size: `city` names the one chosen), DROPOFF_APPROXIMATE
 * (a drop-off or stop placed at its city's centre), DROPOFF_NOT_LOCATED (one nothing could place).
 */
export interface TripWarning {
  code:
    | "PICKUP_NOT_LOCATED"
    | "NO_VEHICLE_NEAR_PICKUP"
    | "NO_VEHICLE_FITS_TRIP"
    | "OTHER_CURRENCIES_LEFT_OUT"
    // docs/availability.md: vehicles held at that time, a pickup sooner than the provider's notice.
    | "VEHICLES_BUSY"
    | "SHORT_NOTICE"
    // docs/rates.md#how-a-vehicle-is-priced, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes: vehicles
    // left out for an extra their card lacks, or a base of 0 (no rule prices them and their own rates are 0).
    | "EXTRA_NOT_OFFERED"
    | "UNPRICED_VEHICLES"
    // docs/places.md: the pickup's city named several places of a similar size; the most populous was chosen.
    | "PICKUP_CITY_AMBIGUOUS"
    // docs/places.md#the-pickups-clock: the pickup's wall-clock time falls in a spring-forward gap; moved forward by it.
    | "PICKUP_TIME_ADJUSTED"
    // docs/places.md#drop-offs-and-stops: a drop-off or stop placed at its city's centre; one nothing could place.
    | "DROPOFF_APPROXIMATE"
    | "DROPOFF_NOT_LOCATED"
    // docs/fx.md#what-a-network-quote-shows: a network quote's options in a currency the FX table has no rate for; rates older than 7 days.
    | "NO_FX_RATE"
    | "FX_RATES_STALE"
    // A passenger member GNet does not know (`phone` for `phoneNumber`): kept as sent, read by no provider.
    | "UNKNOWN_PASSENGER_FIELD"
    // docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes: providers left out, the trip longer than their maxTripKm.
    | "TRIP_TOO_LONG"
    // docs/terms.md#terms-on-every-quote-option-and-every-booking: options already past their free cancellation (counted).
    | "CANCELLATION_FEE_APPLIES"
    // docs/flights.md#the-pickup-follows-the-flight: a flight moved the pickup to less than 15 minutes from now.
    | "PICKUP_MOVED_SHORT_NOTICE";
  message: string;
  /** The request field the warning is about, when it is about one. */
  field?: string;
  /** OTHER_CURRENCIES_LEFT_OUT: how many vehicle options were left out, and their currencies. */
  count?: number;
  currencies?: string[];
  /** PICKUP_CITY_AMBIGUOUS: the place chosen (`Springfield, MO, US`); DROPOFF_APPROXIMATE: the city whose centre it is. */
  city?: string;
  /** EXTRA_NOT_OFFERED: the extras' codes. */
  codes?: string[];
  /** FX_RATES_STALE: the day of the rates used. */
  rateDate?: string;
}

/** The passenger members GNet names (the spec's passengers[]), with `phones[]` (docs/gnet.md#wire-compatibility-in-detail). */
const PASSENGER_MEMBERS = ["firstName", "lastName", "email", "phoneNumber", "accountNumber", "phones"];
/** What a member that is not one usually meant. */
const MEANT: Record<string, string> = { phone: "phoneNumber", mobile: "phoneNumber", tel: "phoneNumber", telephone: "phoneNumber", mail: "email" };

/** One UNKNOWN_PASSENGER_FIELD warning per passenger member GNet does not know, naming it (at most 20). */
export function unknownPassengerFields(passengers: unknown): TripWarning[] {
  if (!Array.isArray(passengers)) return [];
  const warnings: TripWarning[] = [];
  passengers.forEach((p, i) => {
    if (typeof p !== "object" || p === null || Array.isArray(p)) return;
    for (const key of Object.keys(p)) {
      if (PASSENGER_MEMBERS.includes(key) || warnings.length >= 20) continue;
      const canon = key.replace(/[_\s-]/g, "").toLowerCase();
      const meant = MEANT[canon] ?? PASSENGER_MEMBERS.find((m) => m.toLowerCase() === canon);
      warnings.push({
        code: "UNKNOWN_PASSENGER_FIELD",
        field: `passengers[${i}].${key}`,
        message:
          `${key} is not a passenger field (${PASSENGER_MEMBERS.join(", ")})${meant ? `: did you mean ${meant}?` : ""} ` +
          "It is kept as sent, but no provider reads it",
      });
    }
  });
  return warnings;
}
