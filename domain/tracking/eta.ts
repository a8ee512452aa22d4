import type { Position } from "../geo";

/**
 * The chauffeur's estimated time to the pickup (docs/flights.md#eta): from the latest position, while the booking is
 * ASSIGNED or EN_ROUTE. How long the road takes is a port, so that a routing engine can replace the default (the
 * great circle × 1.3 at the provider's `etaSpeedKmh`).
 */

/** How long the road from one position to another takes at `speedKmh`, in whole minutes (rounded up). */
export interface RoadTimes {
  minutesBetween(from: Position, to: Position, speedKmh: number): number;
}

/** The ETA a booking shows: minutes from the position to the pickup, and the instant that makes (UTC). */
export interface Eta {
  toPickupMinutes: number;
  at: string;
}

/** The speed the road is taken at when the provider set none (km/h). */
export const DEFAULT_ETA_SPEED_KMH = 40;

/** The ETA of a position taken at `takenAtMs` (Unix ms), `minutes` from the pickup. */
export function etaFrom(takenAtMs: number, minutes: number): Eta {
  const at = new Date(Math.floor(takenAtMs / 1000) * 1000 + minutes * 60_000).toISOString().replace(".000Z", "Z");
  return { toPickupMinutes: minutes, at };
}
