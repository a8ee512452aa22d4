import KDBush from "kdbush";
import type { FleetEntry } from "../../domain/fleet/entry";
import type { GeoHit, GeoSearch, UnlocatedCount } from "../../domain/fleet/ports";
import { EARTH_RADIUS_KM, greatCircleKm } from "../../domain/geo";
import { matchesAllWords, searchTextOf } from "../../domain/fleet/text";
import type { IndexInput, IndexParts } from "./index-parts";

const RAD = Math.PI / 180;
/** Safety margin (1 mm) for box tests, so float noise never lets a box decision disagree with the per-point test. */
const EPS_KM = 1e-6;

/** The active fleet split for the index: entries with a position (aligned with index ids) and those without. */
export function splitForIndex(entries: FleetEntry[]): { located: FleetEntry[]; unlocated: FleetEntry[]; input: IndexInput } {
  const located: FleetEntry[] = [];
  const unlocated: FleetEntry[] = [];
  for (const e of entries) {
    if (!e.active) continue;
    if (e.lat === null || e.lon === null) unlocated.push(e);
    else located.push(e);
  }
  const n = located.length;
  const input: IndexInput = { lons: new Float64Array(n), lats: new Float64Array(n), names: new Array(n), descriptions: new Array(n), types: new Array(n) };
  for (let i = 0; i < n; i++) {
    const e = located[i];
    input.lons[i] = e.lon!;
    input.lats[i] = e.lat!;
    input.names[i] = e.name;
    input.descriptions[i] = e.description;
    input.types[i] = e.type;
  }
  return { located, unlocated, input };
}

interface Box {
  left: number;
  right: number;
  axis: number;
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

interface QueueItem {
  key: number;
  /** Index id for a point; -1 for a node. */
  id: number;
  box: Box | undefined;
}

/** A prepared centre: degrees plus cos(lat), reused by every box test. */
interface Centre {
  lat: number;
  lon: number;
  cosLat: number;
}

/**
 * One immutable generation of the fleet search index. Searches read it without locks; a rebuild
 * produces a new snapshot that replaces this one in a single assignment.
 */
export class FleetSnapshot {
  private readonly kd: KDBush;
  private readonly unlocatedByAirport = new Map<string, number[]>();
  private readonly unlocatedText: string[];

  constructor(
    private readonly located: FleetEntry[],
    parts: IndexParts,
    private readonly withoutPosition: FleetEntry[],
  ) {
    this.kd = KDBush.from(parts.kd);
    this.searchText = parts.searchText;
    this.typeIds = parts.typeIds;
    this.typeNames = parts.typeNames;
    this.unlocatedText = withoutPosition.map(searchTextOf);
    withoutPosition.forEach((e, i) => {
      for (const code of e.airports) {
        const list = this.unlocatedByAirport.get(code);
        if (list) list.push(i);
        else this.unlocatedByAirport.set(code, [i]);
      }
    });
  }

  private readonly searchText: string[];
  private readonly typeIds: Uint16Array;
  private readonly typeNames: string[];

  get size(): number {
    return this.located.length;
  }

  /** Counts every match and returns the ranked page [offset, offset + limit) by (unrounded distance, slug). */
  search(query: GeoSearch): { total: number; hits: GeoHit[] } {
    const centres: Centre[] = query.centres.map((c) => ({ lat: c.lat, lon: c.lon, cosLat: Math.cos(c.lat * RAD) }));
    const filter = this.filterFor(query.types, query.words);
    const total = this.count(centres, query.radiusKm, filter);
    const k = query.offset + query.limit;
    if (total === 0 || query.limit === 0 || query.offset >= total) return { total, hits: [] };
    const best = this.nearest(centres, query.radiusKm, filter, k);
    return { total, hits: best.slice(query.offset, k).map((h) => ({ entry: this.located[h.id], distanceKm: h.dist })) };
  }

  /** Active entries without a position serving one of `airports` and passing the filters, per company (netid order). */
  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }): UnlocatedCount[] {
    const wanted = filter.types ? new Set(filter.types) : undefined;
    const perCompany = new Map<string, { entries: Set<number>; airports: Set<string> }>();
    for (const code of airports) {
      for (const i of this.unlocatedByAirport.get(code) ?? []) {
        const e = this.withoutPosition[i];
        if (wanted && !wanted.has(e.type)) continue;
        if (!matchesAllWords(this.unlocatedText[i], filter.words)) continue;
        let company = perCompany.get(e.netid);
        if (!company) perCompany.set(e.netid, (company = { entries: new Set(), airports: new Set() }));
        company.entries.add(i);
        company.airports.add(code);
      }
    }
    return [...perCompany]
      .map(([netid, c]) => ({ netid, count: c.entries.size, airports: [...c.airports] }))
      .sort((a, b) => compareBytes(a.netid, b.netid));
  }

  /** The per-id filter for types and words; undefined when nothing filters (so whole subtrees can be counted). */
  private filterFor(types: string[] | undefined, words: string[]): ((id: number) => boolean) | undefined {
    let typeMask: Uint8Array | undefined;
    if (types) {
      typeMask = new Uint8Array(this.typeNames.length);
      const wanted = new Set(types);
      this.typeNames.forEach((name, i) => (typeMask![i] = wanted.has(name) ? 1 : 0));
    }
    if (!typeMask && words.length === 0) return undefined;
    const typeIds = this.typeIds;
    const text = this.searchText;
    return (id) => (!typeMask || typeMask[typeIds[id]] === 1) && (words.length === 0 || matchesAllWords(text[id], words));
  }

  /** Distance from the nearest centre, in km. */
  private pointDistance(centres: Centre[], i: number): number {
    const lon = this.kd.coords[2 * i];
    const lat = this.kd.coords[2 * i + 1];
    let best = Infinity;
    for (const c of centres) {
      const d = greatCircleKm(c.lat, c.lon, lat, lon);
      if (d < best) best = d;
    }
    return best;
  }

  /**
   * Counts matches without materialising them: a kd-tree node entirely inside one centre's circle
   * adds its size (or, with filters, its passing points) without any distance computation; a node
   * entirely outside every circle is skipped.
   */
  private count(centres: Centre[], radiusKm: number, filter: ((id: number) => boolean) | undefined): number {
    const { ids, nodeSize } = this.kd;
    if (ids.length === 0) return 0;
    const outside = haverSin((radiusKm + EPS_KM) / EARTH_RADIUS_KM);
    const inside = radiusKm - EPS_KM;
    let total = 0;
    const stack: Box[] = [{ left: 0, right: ids.length - 1, axis: 0, minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 }];
    // Bounded: each node is pushed at most once, and there are fewer nodes than points.
    while (stack.length > 0) {
      const box = stack.pop()!;
      let near = false;
      let covered = false;
      for (const c of centres) {
        if (boxHaverSin(c, box) > outside) continue;
        near = true;
        if (boxInside(c, box, inside)) {
          covered = true;
          break;
        }
      }
      if (!near) continue;
      const { left, right } = box;
      if (covered) {
        if (!filter) total += right - left + 1;
        else for (let i = left; i <= right; i++) if (filter(ids[i])) total++;
        continue;
      }
      if (right - left <= nodeSize) {
        for (let i = left; i <= right; i++) if ((!filter || filter(ids[i])) && this.pointDistance(centres, i) <= radiusKm) total++;
        continue;
      }
      const m = (left + right) >> 1;
      if ((!filter || filter(ids[m])) && this.pointDistance(centres, m) <= radiusKm) total++;
      stack.push(...children(box, m, this.kd.coords));
    }
    return total;
  }

  /**
   * The k best matches by (distance, slug): best-first traversal (geokdbush's approach, with several
   * centres) that stops once k points are out and the next candidate is farther than the k-th.
   */
  private nearest(centres: Centre[], radiusKm: number, filter: ((id: number) => boolean) | undefined, k: number): Array<{ id: number; dist: number }> {
    const { ids, coords, nodeSize } = this.kd;
    const queue = new MinQueue();
    const found: Array<{ id: number; dist: number }> = [];
    const pushPoint = (i: number) => {
      const id = ids[i];
      if (filter && !filter(id)) return;
      const d = this.pointDistance(centres, i);
      if (d <= radiusKm) queue.push({ key: d, id, box: undefined });
    };
    queue.push({ key: 0, id: -1, box: { left: 0, right: ids.length - 1, axis: 0, minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } });
    let kth = Infinity;
    while (queue.length > 0) {
      const item = queue.pop()!;
      if (item.key > radiusKm + EPS_KM || item.key > kth) break;
      if (item.box === undefined) {
        found.push({ id: item.id, dist: item.key });
        if (found.length === k) kth = item.key;
        continue;
      }
      const { left, right } = item.box;
      if (right - left <= nodeSize) {
        for (let i = left; i <= right; i++) pushPoint(i);
        continue;
      }
      const m = (left + right) >> 1;
      pushPoint(m);
      for (const child of children(item.box, m, coords)) {
        if (child.left > child.right) continue;
        let h = Infinity;
        for (const c of centres) h = Math.min(h, boxHaverSin(c, child));
        // A lower bound, nudged down so float noise never ranks a node after a point it contains.
        const key = 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(Math.min(1, h))) - EPS_KM;
        if (key <= radiusKm + EPS_KM) queue.push({ key, id: -1, box: child });
      }
    }
    const located = this.located;
    found.sort((a, b) => a.dist - b.dist || compareBytes(located[a.id].slug, located[b.id].slug));
    return found.slice(0, k);
  }
}

/** Plain byte-order comparison (slugs are ASCII, so UTF-16 order is byte order). */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function children(box: Box, m: number, coords: ArrayLike<number>): [Box, Box] {
  const midLon = coords[2 * m];
  const midLat = coords[2 * m + 1];
  const axis = (box.axis + 1) % 2;
  return [
    { left: box.left, right: m - 1, axis, minLon: box.minLon, minLat: box.minLat, maxLon: box.axis === 0 ? midLon : box.maxLon, maxLat: box.axis === 1 ? midLat : box.maxLat },
    { left: m + 1, right: box.right, axis, minLon: box.axis === 0 ? midLon : box.minLon, minLat: box.axis === 1 ? midLat : box.minLat, maxLon: box.maxLon, maxLat: box.maxLat },
  ];
}

/**
 * True when the whole box lies within `radiusKm` of the centre. On a sphere the farthest point of a
 * lat/lon box from a centre is a corner as long as no longitude in the box is more than 180° away
 * (distance grows with |Δlon| along a parallel, and along a meridian it peaks at an end of the segment).
 */
function boxInside(c: Centre, box: Box, radiusKm: number): boolean {
  if (Math.abs(c.lon - box.minLon) > 180 || Math.abs(c.lon - box.maxLon) > 180) return false;
  return (
    greatCircleKm(c.lat, c.lon, box.minLat, box.minLon) <= radiusKm &&
    greatCircleKm(c.lat, c.lon, box.minLat, box.maxLon) <= radiusKm &&
    greatCircleKm(c.lat, c.lon, box.maxLat, box.minLon) <= radiusKm &&
    greatCircleKm(c.lat, c.lon, box.maxLat, box.maxLon) <= radiusKm
  );
}

// The lower bound below follows geokdbush (ISC, Vladimir Agafonkin), which does not export it.

function haverSin(theta: number): number {
  const s = Math.sin(theta / 2);
  return s * s;
}

function haverSinDistPartial(haverSinDLng: number, cosLat1: number, lat1: number, lat2: number): number {
  return cosLat1 * Math.cos(lat2 * RAD) * haverSinDLng + haverSin((lat1 - lat2) * RAD);
}

function vertexLat(lat: number, haverSinDLng: number): number {
  const cosDLng = 1 - 2 * haverSinDLng;
  if (cosDLng <= 0) return lat > 0 ? 90 : -90;
  return Math.atan(Math.tan(lat * RAD) / cosDLng) / RAD;
}

/** Lower bound of the haversine of the distance from the centre to any point of the box. */
function boxHaverSin(c: Centre, box: Box): number {
  const { lon, lat, cosLat } = c;
  if (lon >= box.minLon && lon <= box.maxLon) {
    if (lat < box.minLat) return haverSin((lat - box.minLat) * RAD);
    if (lat > box.maxLat) return haverSin((lat - box.maxLat) * RAD);
    return 0;
  }
  const haverSinDLng = Math.min(haverSin((lon - box.minLon) * RAD), haverSin((lon - box.maxLon) * RAD));
  const extremumLat = vertexLat(lat, haverSinDLng);
  if (extremumLat > box.minLat && extremumLat < box.maxLat) return haverSinDistPartial(haverSinDLng, cosLat, lat, extremumLat);
  return Math.min(haverSinDistPartial(haverSinDLng, cosLat, lat, box.minLat), haverSinDistPartial(haverSinDLng, cosLat, lat, box.maxLat));
}

/** A binary min-heap on `key`. */
class MinQueue {
  private readonly items: QueueItem[] = [];

  get length(): number {
    return this.items.length;
  }

  push(item: QueueItem): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent].key <= item.key) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = item;
  }

  pop(): QueueItem | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      const n = a.length;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && a[child + 1].key < a[child].key) child++;
        if (a[child].key >= last.key) break;
        a[i] = a[child];
        i = child;
      }
      a[i] = last;
    }
    return top;
  }
}
