import type { FleetEntry } from "../fleet/entry";
import type { FleetSearchIndex } from "../fleet/ports";
import { greatCircleKm } from "../geo";
import type { Position } from "../trips/places";
import type { ProviderFleet } from "./ports";
import type { ServingSet } from "../fleet/serving-set";

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

/**
 * An active vehicle serving a pickup: what a quote option needs of its fleet entry (an entry found by position is
 * read from the geo index, which does not keep its airports), and its distance from the pickup (null: no position).
 */
export type ServingVehicle = Omit<FleetEntry, "airports" | "createdAt" | "updatedAt"> & { distanceKm: number | null };

/** A provider's active vehicles that serve a pickup. */
export interface ServingFleet {
  /** The provider's active vehicles serving `area` (see servesPickup): those within the radius nearest first, then the farther ones listing its airport. */
  servingEntries(netid: string, area: ServiceArea): Promise<ServingVehicle[]>;
  /**
   * The same vehicles as a serving set (columns, no object per vehicle): what a quote ranks, read from the geo
   * index alone (an entry changed in the last second is seen as the index has it).
   */
  servingSet(netid: string, area: ServiceArea): Promise<ServingSet>;
}

/** Upper bound on the entries one circle search returns (a provider's whole fleet on one spot stays within it). */
const MAX_SERVING_ENTRIES = 1_000_000;

/**
 * The serving fleet read through the geo index: the provider's entries within the radius come from the index (a
 * circle query filtered by owner: the cost follows the vehicles near the pickup, not the fleet's size, and no row is
 * read), and only those listing the airport that the circle cannot hold (no position, or beyond the radius) from
 * storage. An entry changed in the last second is seen as the index has it (fleet changes reach it within a
 * second). `netid` is the provider's netid as stored.
 */
export function servingFleetOf(deps: { index: Pick<FleetSearchIndex, "search" | "serving">; fleet: ProviderFleet }): ServingFleet {
  return {
    async servingSet(netid, area) {
      return deps.index.serving(netid, area);
    },
    async servingEntries(netid, area) {
      const { hits } = deps.index.search({
        centres: [area.position],
        radiusKm: area.radiusKm,
        types: undefined,
        words: [],
        netid,
        offset: 0,
        limit: MAX_SERVING_ENTRIES,
      });
      // Each hit's entry is a fresh object: completed in place rather than copied (a big fleet has thousands).
      const serving: ServingVehicle[] = hits.map((h) => Object.assign(h.entry, { active: true, distanceKm: h.distanceKm }));
      if (area.airport === undefined) return serving;
      const far = await deps.fleet.activeEntriesListingBeyond(netid, area.airport, area.position, area.radiusKm);
      if (far.length === 0) return serving;
      const near = new Set(hits.map((h) => h.entry.slug));
      for (const e of far) {
        if (near.has(e.slug)) continue;
        const { airports: _airports, createdAt: _created, updatedAt: _updated, ...vehicle } = e;
        const distanceKm = e.lat === null || e.lon === null ? null : greatCircleKm(area.position.lat, area.position.lon, e.lat, e.lon);
        serving.push({ ...vehicle, distanceKm });
      }
      return serving;
    },
  };
}
