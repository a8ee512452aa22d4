import { distance } from "geokdbush";
import type { Position } from "../../domain/geo";
import type { RoadTimes } from "../../domain/tracking/eta";
import { ROAD_FACTOR } from "../../domain/trips/trip-length";

/**
 * The default road time (docs/flights.md#eta): the great circle (geokdbush's, the search index's distance) × 1.3,
 * driven at the given speed, in whole minutes rounded up. A routing engine is another RoadTimes.
 */
export const greatCircleRoadTimes: RoadTimes = {
  minutesBetween(from: Position, to: Position, speedKmh: number): number {
    const km = distance(from.lon, from.lat, to.lon, to.lat) * ROAD_FACTOR;
    return Math.ceil((km / speedKmh) * 60);
  },
};
