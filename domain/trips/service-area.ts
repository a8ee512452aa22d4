import type { FleetEntry } from "../fleet/entry";
import type { FleetSearchIndex } from "../fleet/ports";
import { greatCircleKm } from "../geo";
import type { Position } from "./places";
import type { ProviderFleet } from "./ports";

/** A provider's service radius (integration setting `serviceRadiusKm`): 1–500 km, 50 by default. */
export const DEFAULT_SERVICE_RADIUS_KM = 50;
export const MIN_SERVICE_RADIUS_KM = 1;
export const MAX_SERVICE_RADIUS_KM = 500;

/** Where a pickup is, and how far a provider's vehicles may stand from it. */
export interface ServiceArea {
  position: Position;
  /** The IATA code of the pickup's airport (upper-case), when it is one: vehicles listing it serve it wherever they stand. */
  airport?: string;
  radiusKm: number;
}

/** Whether a fleet entry serves a pickup: it lists the pickup airport, or stands within the radius of the pickup. */
export function servesPickup(entry: Pick<FleetEntry, "lat" | "lon" | "airports">, area: ServiceArea): boolean {
  if (area.airport !== undefined && entry.airports.includes(area.airport)) return true;
  if (entry.lat === null || entry.lon === null) return false;
  return greatCircleKm(area.position.lat, area.position.lon, entry.lat, entry.lon) <= area.radiusKm;
}

/** A provider's active vehicles that serve a pickup. */
export interface ServingFleet {
  /** The provider's active entries serving `area` (see servesPickup), in slug order. */
  servingEntries(netid: string, area: ServiceArea): Promise<FleetEntry[]>;
}

/** Upper bound on the entries one lookup reads (a provider's whole fleet on one spot stays within it). */
const MAX_SERVING_ENTRIES = 1_000_000;

/**
 * The serving fleet read through the geo index: the provider's entries within the radius come from the index
 * (a circle query filtered by owner, so the cost follows the vehicles near the pickup, not the fleet's size),
 * those listing the airport from storage's per-airport lookup; both are then read from storage and checked
 * again, so an entry changed since the index was built is judged on its stored fields. `netid` is the
 * provider's netid as stored.
 */
export function servingFleetOf(deps: { index: Pick<FleetSearchIndex, "search">; fleet: ProviderFleet }): ServingFleet {
  return {
    async servingEntries(netid, area) {
      const { hits } = deps.index.search({ centres: [area.position], radiusKm: area.radiusKm, types: undefined, words: [], netid, offset: 0, limit: MAX_SERVING_ENTRIES });
      const [near, listing] = await Promise.all([
        hits.length > 0 ? deps.fleet.activeEntriesBySlug(netid, hits.map((h) => h.entry.slug)) : [],
        area.airport !== undefined ? deps.fleet.activeEntriesListing(netid, area.airport) : [],
      ]);
      const bySlug = new Map<string, FleetEntry>();
      for (const e of [...near, ...listing]) if (e.active && servesPickup(e, area)) bySlug.set(e.slug, e);
      return [...bySlug.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    },
  };
}
