import { distance } from "geokdbush";
import type { CircleMatches, CircleQuery, IndexedEntry } from "../../../domain/fleet/ports";
import type { Exclusions } from "./found";
import { grown } from "../typed-array";
import { chord2To, prepare } from "./query";
import { walked, walkTree } from "./walk";
import type { FleetSnapshot } from "./snapshot";

/** Matches gathered so far: global ids and columns, grown by doubling. */
class Gathered {
  n = 0;
  id = new Uint32Array(1024);
  owner = new Uint32Array(1024);
  rate = new Uint32Array(1024);
  dist = new Float64Array(1024);

  push(id: number, owner: number, rate: number, dist: number): void {
    if (this.n === this.id.length) {
      this.id = grown(this.id);
      this.owner = grown(this.owner);
      this.rate = grown(this.rate);
      this.dist = grown(this.dist);
    }
    const i = this.n++;
    this.id[i] = id;
    this.owner[i] = owner;
    this.rate[i] = rate;
    this.dist[i] = dist;
  }
}

/**
 * Every entry of `snapshot` within the circle that seats the party (and holds the luggage when asked), except
 * `excluded` ones: the tree walked by node boxes (walkTree: a node beyond the radius chord is skipped), each point near
 * enough given its exact haversine distance (geokdbush's, what searches rank by). `ownerOf` and `rateBase` map the
 * snapshot's interned owners and rates to the caller's numbering.
 */
function scan(
  snapshot: FleetSnapshot,
  query: CircleQuery,
  excluded: ReadonlySet<number> | undefined,
  ownerOf: (id: number) => number,
  rateBase: number,
  out: Gathered,
): void {
  const { parts, tree } = snapshot.columns;
  const { ids, xyz, coords } = tree;
  const q = prepare({ centres: [query.centre], radiusKm: query.radiusKm, types: undefined, words: [], offset: 0, limit: 0 });
  const outer = q.chord2 + q.margin;
  const cx = q.x[0],
    cy = q.y[0],
    cz = q.z[0];
  const clat = q.lat[0],
    clon = q.lon[0],
    radiusKm = q.radiusKm;
  const { maxPassengers, maxLuggage, netidId, rateId } = parts;
  const pax = query.minPassengers;
  const luggage = query.minLuggage ?? -2;
  // Every point's exact distance is wanted, so covered nodes are not looked for: each range is tested point by point.
  const end = walkTree(tree, q, false);
  const r = walked.ranges;
  for (let k = 0; k < end; k += 3) {
    const to = r[k + 1];
    for (let i = r[k]; i <= to; i++) {
      if (chord2To(xyz, i, cx, cy, cz) > outer) continue;
      const id = ids[i];
      if (maxPassengers[id] < pax || maxLuggage[id] < luggage) continue;
      if (excluded !== undefined && excluded.has(id)) continue;
      const d = distance(clon, clat, coords[2 * i], coords[2 * i + 1]);
      if (d <= radiusKm) out.push(id, ownerOf(netidId[id]), rateBase + rateId[id], d);
    }
  }
}

/** Each snapshot's owner numbers by netid, made once (a snapshot never changes). */
const ownerNumbers = new WeakMap<FleetSnapshot, Map<string, number>>();

function ownersOf(snapshot: FleetSnapshot): Map<string, number> {
  let map = ownerNumbers.get(snapshot);
  if (!map) {
    map = new Map(snapshot.columns.parts.netids.map((netid, i) => [netid, i]));
    ownerNumbers.set(snapshot, map);
  }
  return map;
}

/** The matches of a circle in a base snapshot (less its excluded entries) and an overlay of recent changes. */
class ViewMatches implements CircleMatches {
  readonly count: number;
  readonly owner: Uint32Array;
  readonly rate: Uint32Array;
  readonly distanceKm: Float64Array;
  readonly owners: number;
  readonly rates: number;
  private readonly id: Uint32Array;
  private readonly baseRates: number;
  private readonly baseOwners: number;

  constructor(
    private readonly base: FleetSnapshot,
    private readonly overlay: FleetSnapshot | undefined,
    private readonly inBase: number,
    private readonly extraOwners: string[],
    found: Gathered,
  ) {
    this.count = found.n;
    this.id = found.id.subarray(0, found.n);
    this.owner = found.owner.subarray(0, found.n);
    this.rate = found.rate.subarray(0, found.n);
    this.distanceKm = found.dist.subarray(0, found.n);
    this.baseOwners = base.columns.parts.netids.length;
    this.baseRates = base.columns.parts.rates.length / 3;
    this.owners = this.baseOwners + extraOwners.length;
    this.rates = this.baseRates + (overlay ? overlay.columns.parts.rates.length / 3 : 0);
  }

  netid(owner: number): string {
    return owner < this.baseOwners ? this.base.columns.parts.netids[owner] : this.extraOwners[owner - this.baseOwners];
  }

  private rateField(rate: number, k: number): string {
    return rate < this.baseRates ? this.base.columns.parts.rates[3 * rate + k] : this.overlay!.columns.parts.rates[3 * (rate - this.baseRates) + k];
  }

  minimumRate(rate: number): string {
    return this.rateField(rate, 0);
  }

  hourlyRate(rate: number): string {
    return this.rateField(rate, 1);
  }

  currency(rate: number): string {
    return this.rateField(rate, 2);
  }

  /** The snapshot holding match `i` (its id there is `this.id[i]`); no tuple per call: quotes read every match. */
  private snapshotOf(i: number): FleetSnapshot {
    return i < this.inBase ? this.base : this.overlay!;
  }

  slug(i: number): string {
    return this.snapshotOf(i).slug(this.id[i]);
  }

  type(i: number): string {
    const { textTypes, textId } = this.snapshotOf(i).columns.parts;
    return textTypes[textId[this.id[i]]];
  }

  entry(i: number): IndexedEntry {
    return this.snapshotOf(i).entry(this.id[i]);
  }
}

/** Every match of `query` in a view: the base's (its excluded entries left out), then the overlay's. */
export function circleMatches(base: FleetSnapshot, excluded: Exclusions, overlay: FleetSnapshot | undefined, query: CircleQuery): CircleMatches {
  const found = new Gathered();
  scan(base, query, excluded.size > 0 ? excluded.set : undefined, (o) => o, 0, found);
  const inBase = found.n;
  const extraOwners: string[] = [];
  if (overlay) {
    // The overlay's owners numbered as the base's where it has them, after them otherwise.
    const baseOwners = ownersOf(base);
    const numbers = overlay.columns.parts.netids.map((netid) => {
      const known = baseOwners.get(netid);
      if (known !== undefined) return known;
      extraOwners.push(netid);
      return base.columns.parts.netids.length + extraOwners.length - 1;
    });
    scan(overlay, query, undefined, (o) => numbers[o], base.columns.parts.rates.length / 3, found);
  }
  return new ViewMatches(base, overlay, inBase, extraOwners, found);
}
