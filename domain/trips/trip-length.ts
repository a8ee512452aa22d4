import { greatCircleKm } from "../geo";
import type { TripWarning } from "./warnings";

/** A provider's integration setting `maxTripKm` (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes): 1–5,000 km of road, 800 by default. */
export const DEFAULT_MAX_TRIP_KM = 800;
export const MAX_TRIP_KM_LIMIT = 5000;

/** Road distance over the great circle (docs/integration.md#the-lifecycle). */
const ROAD_FACTOR = 1.3;

/** The trip's road distance in km (great circle × 1.3); undefined without a placed drop-off. */
export function roadKmOf(pickup: { lat: number; lon: number }, dropOff: { lat: number; lon: number } | undefined): number | undefined {
  return dropOff ? greatCircleKm(pickup.lat, pickup.lon, dropOff.lat, dropOff.lon) * ROAD_FACTOR : undefined;
}

/** Whether a provider whose `maxTripKm` is `maxKm` (800 when unset) leaves a trip of `roadKm` out. */
export function tooLong(roadKm: number | undefined, maxKm: number | undefined): boolean {
  return roadKm !== undefined && roadKm > (maxKm ?? DEFAULT_MAX_TRIP_KM);
}

/** The TRIP_TOO_LONG warning: `count` vehicles left out, the trip's road distance beyond their provider's `maxTripKm`. */
export function tripTooLong(count: number, roadKm: number): TripWarning {
  const km = Math.round(roadKm);
  return {
    code: "TRIP_TOO_LONG",
    message: `${count} vehicle(s) left out: the trip's road distance (${km} km) is beyond the longest their provider quotes (maxTripKm)`,
    count,
  };
}
