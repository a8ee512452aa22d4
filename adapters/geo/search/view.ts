import type { CircleMatches, CircleQuery, GeoHit, GeoSearch, UnlocatedCount } from "../../../domain/fleet/ports";
import { joinedSets, servingSetOf, type ServingSet } from "../../../domain/fleet/serving-set";
import { circleMatches } from "./circle";
import { toHits, type Exclusions, type FoundPage } from "./found";
import { prepare } from "./query";
import { collectServing, servingSetOfSnapshots } from "./serving";
import type { FleetSnapshot } from "./snapshot";
import type { UnlocatedIndex } from "./unlocated";

/**
 * What searches read: a full build (the base) with the entries changed since then left out and
 * answered from a small overlay snapshot of their current rows. Immutable; replaced whole.
 */
export class FleetView {
  readonly size: number;

  constructor(
    readonly base: FleetSnapshot,
    private readonly excluded: Exclusions,
    private readonly overlay: FleetSnapshot | undefined,
    private readonly withoutPosition: UnlocatedIndex,
  ) {
    this.size = base.size - excluded.size + (overlay?.size ?? 0);
  }

  search(query: GeoSearch): { total: number; hits: GeoHit[] } {
    const { total, page } = this.searchPage(query);
    return { total, hits: page ? toHits(page) : [] };
  }

  /** Counts every match and gathers the page [offset, offset + limit) (undefined when it is empty). */
  searchPage(query: GeoSearch): { total: number; page: FoundPage | undefined } {
    const q = prepare(query);
    const excluded = this.excluded.size > 0 ? this.excluded : undefined;
    const total = this.base.count(q, excluded) + (this.overlay ? this.overlay.count(q) : 0);
    const k = query.offset + query.limit;
    if (total === 0 || query.limit === 0 || query.offset >= total) return { total, page: undefined };
    let found = this.base.nearest(q, k, excluded);
    if (this.overlay) found = found.merge(this.overlay.nearest(q, k));
    return { total, page: found.slice(query.offset, Math.min(k, found.length)) };
  }

  /** One company's entries serving a pickup (see FleetSearchIndex.serving), from the base less its excluded entries and the overlay. */
  serving(netid: string, area: { position: { lat: number; lon: number }; radiusKm: number; airport?: string }): ServingSet {
    const q = prepare({ centres: [area.position], radiusKm: area.radiusKm, types: undefined, words: [], netid, offset: 0, limit: 0 });
    const base: number[] = [];
    collectServing(this.base, q, netid, area.airport, this.excluded.size > 0 ? this.excluded.set : undefined, base);
    const parts = [{ snapshot: this.base, ids: base }];
    if (this.overlay) {
      const recent: number[] = [];
      collectServing(this.overlay, q, netid, area.airport, undefined, recent);
      if (recent.length > 0) parts.push({ snapshot: this.overlay, ids: recent });
    }
    const located = servingSetOfSnapshots(parts);
    return area.airport === undefined ? located : joinedSets(located, servingSetOf(this.withoutPosition.listing(area.airport, netid)));
  }

  circle(query: CircleQuery): CircleMatches {
    return circleMatches(this.base, this.excluded, this.overlay, query);
  }

  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }): UnlocatedCount[] {
    return this.withoutPosition.unlocated(airports, filter);
  }
}
