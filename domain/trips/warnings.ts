/**
 * A warning in sendTrip's answer (status 200): something the caller should know that did not stop the request.
 * PICKUP_NOT_LOCATED (a booking whose pickup could not be placed), NO_VEHICLE_NEAR_PICKUP (a quote no vehicle
 * of the provider serves), NO_VEHICLE_FITS_TRIP (serving vehicles, none seating the passengers and luggage),
 * OTHER_CURRENCIES_LEFT_OUT (options priced in other currencies than the quote's, counted).
 */
export interface TripWarning {
  code:
    | "PICKUP_NOT_LOCATED"
    | "NO_VEHICLE_NEAR_PICKUP"
    | "NO_VEHICLE_FITS_TRIP"
    | "OTHER_CURRENCIES_LEFT_OUT"
    // CONTRACT §19.5: vehicles held at that time, a pickup sooner than the provider's notice.
    | "VEHICLES_BUSY"
    | "SHORT_NOTICE"
    // CONTRACT §19.3–4: vehicles left out for an extra their card lacks, or a fee of 0.
    | "EXTRA_NOT_OFFERED"
    | "UNPRICED_VEHICLES"
    // CONTRACT §19.4: providers left out, the trip longer than their maxTripKm.
    | "TRIP_TOO_LONG";
  message: string;
  /** The request field the warning is about, when it is about one. */
  field?: string;
  /** OTHER_CURRENCIES_LEFT_OUT: how many vehicle options were left out, and their currencies. */
  count?: number;
  currencies?: string[];
  /** EXTRA_NOT_OFFERED: the extras' codes. */
  codes?: string[];
}

/** SHORT_NOTICE (providers left out: the pickup is sooner than their minimumNoticeMinutes) and VEHICLES_BUSY (held vehicles left out), when any. */
export function availabilityWarnings(shortNotice: number, busy: number): TripWarning[] {
  const warnings: TripWarning[] = [];
  if (shortNotice > 0)
    warnings.push({ code: "SHORT_NOTICE", message: `${shortNotice} provider(s) left out: the pickup is sooner than their minimum notice`, count: shortNotice });
  if (busy > 0) warnings.push({ code: "VEHICLES_BUSY", message: `${busy} vehicle(s) left out: booked or blocked at that time`, count: busy });
  return warnings;
}
