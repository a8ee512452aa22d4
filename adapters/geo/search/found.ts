import type { GeoHit } from "../../../domain/fleet/ports";
import { RAD } from "./query";
import type { FleetSnapshot } from "./snapshot";

/**
 * Matches found by one snapshot, or merged from a view's snapshots, ordered by (distance, slug): typed arrays, no
 * object per match. Match i is entry `ids[i]` of `snapshots[from[i]]`, at exact distance `dist[i]`.
 */
export class FoundPage {
  constructor(
    readonly snapshots: readonly FleetSnapshot[],
    readonly from: Uint8Array,
    readonly ids: Int32Array,
    readonly dist: Float64Array,
  ) {}

  get length(): number {
    return this.ids.length;
  }

  /** Matches [start, end) of this page. */
  slice(start: number, end: number): FoundPage {
    return new FoundPage(this.snapshots, this.from.subarray(start, end), this.ids.subarray(start, end), this.dist.subarray(start, end));
  }

  /** This page and `other` (of another snapshot) merged by (distance, slug). */
  merge(other: FoundPage): FoundPage {
    if (other.length === 0) return this;
    const snapshots = [...this.snapshots, ...other.snapshots];
    const shift = this.snapshots.length;
    const n = this.length + other.length;
    const from = new Uint8Array(n);
    const ids = new Int32Array(n);
    const dist = new Float64Array(n);
    let i = 0;
    let j = 0;
    for (let o = 0; o < n; o++) {
      const takeThis = j >= other.length || (i < this.length && compareFound(this, i, other, j) <= 0);
      if (takeThis) {
        from[o] = this.from[i];
        ids[o] = this.ids[i];
        dist[o] = this.dist[i++];
      } else {
        from[o] = other.from[j] + shift;
        ids[o] = other.ids[j];
        dist[o] = other.dist[j++];
      }
    }
    return new FoundPage(snapshots, from, ids, dist);
  }
}

/** The matches a running nearest() has taken out, in scratch space reused by every search (they never interleave). */
class Gathered {
  private ids = new Int32Array(1024);
  private dist = new Float64Array(1024);
  private n = 0;

  reset(): void {
    this.n = 0;
  }

  /** Adds a match; returns how many there are now. */
  add(id: number, dist: number): number {
    if (this.n === this.ids.length) {
      const ids = new Int32Array(2 * this.n);
      const dists = new Float64Array(2 * this.n);
      ids.set(this.ids);
      dists.set(this.dist);
      this.ids = ids;
      this.dist = dists;
    }
    this.ids[this.n] = id;
    this.dist[this.n] = dist;
    return ++this.n;
  }

  /** The largest distance gathered. */
  farthest(): number {
    let max = 0;
    for (let i = 0; i < this.n; i++) max = Math.max(max, this.dist[i]);
    return max;
  }

  /** The matches of `snapshot` as a page ordered by (distance, slug). */
  page(snapshot: FleetSnapshot): FoundPage {
    const { n, ids, dist } = this;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => dist[a] - dist[b] || snapshot.compareSlugs(ids[a], ids[b]));
    const outIds = new Int32Array(n);
    const outDist = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      outIds[i] = ids[order[i]];
      outDist[i] = dist[order[i]];
    }
    return new FoundPage([snapshot], new Uint8Array(n), outIds, outDist);
  }
}

export const gathered = new Gathered();

/** Order of match i of `a` and match j of `b` by (distance, slug). */
function compareFound(a: FoundPage, i: number, b: FoundPage, j: number): number {
  if (a.dist[i] !== b.dist[j]) return a.dist[i] - b.dist[j];
  const sa = a.snapshots[a.from[i]];
  const sb = b.snapshots[b.from[j]];
  if (sa === sb) return sa.compareSlugs(a.ids[i], b.ids[j]);
  const x = sa.slug(a.ids[i]);
  const y = sb.slug(b.ids[j]);
  return x < y ? -1 : x > y ? 1 : 0;
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

/** Results of a snapshot search as the port shows them. */
export function toHits(page: FoundPage): GeoHit[] {
  const hits: GeoHit[] = [];
  for (let i = 0; i < page.length; i++) hits.push({ entry: page.snapshots[page.from[i]].entry(page.ids[i]), distanceKm: page.dist[i] });
  return hits;
}
