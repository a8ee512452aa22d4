import type { AirportDirectory } from "../airports";
import { greatCircleKm } from "../geo";
import type { TripLocation } from "./booking";
import { positionOf, type Position } from "./places";
import type { TripWarning } from "./warnings";

/** A provider's integration setting `maxTripKm` (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes): 1–5,000 km of road, 800 by default. */
export const DEFAULT_MAX_TRIP_KM = 800;
export const MAX_TRIP_KM_LIMIT = 5000;

/** Road distance over the great circle, the usual urban detour (docs/integration.md#the-lifecycle). */
export const ROAD_FACTOR = 1.3;

/**
 * The trip's road distance in km (docs/rates.md#stops-the-road-runs-through-them): pickup → each placed stop → drop-off,
 * each leg great circle × 1.3; undefined without a placed drop-off. A stop nothing places adds no leg.
 */
export function roadKmOf(
  pickup: { lat: number; lon: number },
  dropOff: { lat: number; lon: number } | undefined,
  stops?: ReadonlyArray<{ lat: number; lon: number } | undefined>,
): number | undefined {
  if (!dropOff) return undefined;
  if (!stops || stops.length === 0) return greatCircleKm(pickup.lat, pickup.lon, dropOff.lat, dropOff.lon) * ROAD_FACTOR;
  let km = 0;
  let from = pickup;
  for (const stop of stops) {
    if (!stop) continue;
    km += greatCircleKm(from.lat, from.lon, stop.lat, stop.lon) * ROAD_FACTOR;
    from = stop;
  }
  return km + greatCircleKm(from.lat, from.lon, dropOff.lat, dropOff.lon) * ROAD_FACTOR;
}

/** Each stop of a trip where its drop-off would be placed (positionOf), in order; undefined for one nothing places. */
export function stopPositions(
  stops: readonly TripLocation[] | undefined,
  airports: AirportDirectory,
): Array<Position | undefined> | undefined {
  return stops && stops.length > 0 ? stops.map((s) => positionOf(s, airports)) : undefined;
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
