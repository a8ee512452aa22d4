import type { GeoHit } from "../../../domain/fleet/ports";
import { RAD } from "./query";
import type { FleetSnapshot } from "./snapshot";

/** One match found by a snapshot: its global id there and its exact distance. */
export interface Found {
  snapshot: FleetSnapshot;
  id: number;
  dist: number;
}

/**
 * Entries of a snapshot left out of a view (changed since it was built): their global ids as a set (for
 * paging) and as a list with their unit-sphere positions in float64 (for counting).
 */
export class Exclusions {
  readonly ids: Int32Array;
  readonly xyz: Float64Array;

  /** `coords` and `position`: a snapshot's all-types tree's [lon, lat] and each entry's place in it. */
  constructor(readonly set: ReadonlySet<number>, coords: Float64Array, position: Uint32Array) {
    this.ids = Int32Array.from(set);
    this.xyz = new Float64Array(3 * this.ids.length);
    this.ids.forEach((id, j) => {
      const lon = coords[2 * position[id]];
      const lat = coords[2 * position[id] + 1];
      const cosLat = Math.cos(lat * RAD);
      this.xyz[3 * j] = cosLat * Math.cos(lon * RAD);
      this.xyz[3 * j + 1] = cosLat * Math.sin(lon * RAD);
      this.xyz[3 * j + 2] = Math.sin(lat * RAD);
    });
  }

  get size(): number {
    return this.ids.length;
  }
}

/** Merges the pages of several snapshots by (distance, slug). */
export function byDistanceThenSlug(a: Found, b: Found): number {
  if (a.dist !== b.dist) return a.dist - b.dist;
  if (a.snapshot === b.snapshot) return a.snapshot.compareSlugs(a.id, b.id);
  const sa = a.snapshot.slug(a.id);
  const sb = b.snapshot.slug(b.id);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Results of a snapshot search as the port shows them. */
export function toHits(found: Found[]): GeoHit[] {
  return found.map((f) => ({ entry: f.snapshot.entry(f.id), distanceKm: f.dist }));
}
