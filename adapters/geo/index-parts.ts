import KDBush from "kdbush";
import { searchTextOf } from "../../domain/fleet/text";
import type { FleetEntry } from "../../domain/fleet/entry";

/** kd-tree leaf size; small leaves make the count traversal skip more points. */
export const NODE_SIZE = 32;

const RAD = Math.PI / 180;

/** One active fleet entry as the index reads it (a FleetEntry, or a row read straight from SQLite). */
export type IndexRow = Pick<
  FleetEntry,
  "slug" | "netid" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "lat" | "lon" | "minimumRate" | "hourlyRate"
> & {
  /** IATA codes served: an array, or the stored comma-separated list. */
  airports: readonly string[] | string;
};

/** An active entry without a position: only what MISSING_GPS warnings need. */
export interface UnlocatedEntry {
  slug: string;
  netid: string;
  type: string;
  searchText: string;
  airports: string[];
}

/**
 * One kd-tree over a set of located entries, in kdbush's sorted layout (every node is a contiguous
 * range [left, right] split at m = (left + right) >> 1): the entries' global ids and unit-sphere points
 * in that order, and each node's 3-D bounding box (nodes numbered heap-style: children of i are 2i+1, 2i+2).
 */
export interface TreeParts {
  ids: Uint32Array;
  /** x, y, z of each point on the unit sphere, in tree order: the cheap in-radius test. */
  xyz: Float32Array;
  /** minX, minY, minZ, maxX, maxY, maxZ per node. */
  boxes: Float32Array;
  nodeSize: number;
}

/**
 * The built index, columnar (typed arrays and small string tables, no object per entry), so it is
 * transferred from the build worker without copying and holds 1M entries in little memory.
 * Located entries have global ids 0…n−1 in the order read.
 */
export interface IndexParts {
  size: number;
  /** The tree over every located entry, and one per vehicle type (`typeNames[i]` → `typeTrees[i]`). */
  all: TreeParts;
  typeNames: string[];
  typeTrees: TreeParts[];
  lat: Float64Array;
  lon: Float64Array;
  /** Slugs as ASCII bytes, entry i at [slugStart[i], slugStart[i + 1]). */
  slugBytes: Uint8Array;
  slugStart: Uint32Array;
  /** The same slugs as one string, so a slug for output is a cheap substring. */
  slugText: string;
  /** Open-addressing table (size a power of two) of global id + 1 by slug hash; 0 is empty. */
  slugTable: Int32Array;
  /** Interned (name, description, type) triples with their normalised search text. */
  textId: Uint32Array;
  names: string[];
  descriptions: string[];
  textTypes: string[];
  searchTexts: string[];
  netidId: Uint32Array;
  netids: string[];
  imageId: Uint32Array;
  /** imageUrls[0] is null (no image). */
  imageUrls: Array<string | null>;
  rateId: Uint32Array;
  /** Interned (minimum rate, hourly rate) pairs: [min, hourly, min, hourly, …]. */
  rates: string[];
  maxPassengers: Int32Array;
  /** −1 is unknown (null). */
  maxLuggage: Int32Array;
  unlocated: UnlocatedEntry[];
}

/** Every ArrayBuffer of the parts, for postMessage's transfer list. */
export function transferablesOf(parts: IndexParts): ArrayBuffer[] {
  const trees = [parts.all, ...parts.typeTrees];
  const buffers: ArrayBufferLike[] = [
    ...trees.flatMap((t) => [t.ids.buffer, t.xyz.buffer, t.boxes.buffer]),
    parts.lat.buffer,
    parts.lon.buffer,
    parts.slugBytes.buffer,
    parts.slugStart.buffer,
    parts.slugTable.buffer,
    parts.textId.buffer,
    parts.netidId.buffer,
    parts.imageId.buffer,
    parts.rateId.buffer,
    parts.maxPassengers.buffer,
    parts.maxLuggage.buffer,
  ];
  return [...new Set(buffers)] as ArrayBuffer[];
}

/** FNV-1a over the char codes of an ASCII string (slugs are ASCII). */
export function slugHash(slug: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) h = Math.imul(h ^ slug.charCodeAt(i), 16777619);
  return h >>> 0;
}

function slugHashOfBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 16777619);
  return h >>> 0;
}

const noop = () => {};

/** Growable byte buffer for the packed slugs. */
class Bytes {
  data = new Uint8Array(1 << 16);
  length = 0;
  pushAscii(s: string): void {
    if (this.length + s.length > this.data.length) {
      const next = new Uint8Array(Math.max(this.data.length * 2, this.length + s.length));
      next.set(this.data.subarray(0, this.length));
      this.data = next;
    }
    for (let i = 0; i < s.length; i++) this.data[this.length++] = s.charCodeAt(i) & 0x7f;
  }
}

class Interner<K> {
  readonly ids = new Map<K, number>();
  count = 0;
  id(key: K, onNew: () => void): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.count++;
      this.ids.set(key, id);
      onNew();
    }
    return id;
  }
}

/**
 * Builds the whole index from the active rows, in one pass plus the kd-tree sorts. Pure and
 * synchronous: runs in the build worker (rows read there from SQLite) or in-process.
 */
export function buildIndexParts(rows: Iterable<IndexRow>, nodeSize = NODE_SIZE): IndexParts {
  const lat: number[] = [];
  const lon: number[] = [];
  const slugs = new Bytes();
  const slugStart: number[] = [0];
  const textIds: number[] = [];
  const netidIds: number[] = [];
  const imageIds: number[] = [];
  const rateIds: number[] = [];
  const pax: number[] = [];
  const luggage: number[] = [];
  const types: number[] = [];
  const unlocated: UnlocatedEntry[] = [];

  const names: string[] = [];
  const descriptions: string[] = [];
  const textTypes: string[] = [];
  const searchTexts: string[] = [];
  const texts = new Interner<number>();
  const nameOf = new Interner<string>();
  const descriptionOf = new Interner<string>();
  const minimumOf = new Interner<string>();
  const hourlyOf = new Interner<string>();
  const netids: string[] = [];
  const netidOf = new Interner<string>();
  const imageUrls: Array<string | null> = [null];
  const imageOf = new Interner<string>();
  const rates: string[] = [];
  const rateOf = new Interner<number>();
  const typeNames: string[] = [];
  const typeOf = new Interner<string>();

  for (const row of rows) {
    if (row.lat === null || row.lon === null) {
      const airports = typeof row.airports === "string" ? (row.airports ? row.airports.split(",") : []) : [...row.airports];
      unlocated.push({ slug: row.slug, netid: row.netid, type: row.type, searchText: searchTextOf(row), airports });
      continue;
    }
    lat.push(row.lat);
    lon.push(row.lon);
    slugs.pushAscii(row.slug);
    slugStart.push(slugs.length);
    // Intern each field by itself (no per-row key strings), then the (name, description, type) triple by number.
    const typeId = typeOf.id(row.type, () => typeNames.push(row.type));
    const nameId = nameOf.id(row.name, noop);
    const descriptionId = descriptionOf.id(row.description, noop);
    textIds.push(
      texts.id(nameId * 2 ** 22 * 2 ** 9 + descriptionId * 2 ** 9 + typeId, () => {
        names.push(row.name);
        descriptions.push(row.description);
        textTypes.push(row.type);
        searchTexts.push(searchTextOf(row));
      }),
    );
    types.push(typeId);
    netidIds.push(netidOf.id(row.netid, () => netids.push(row.netid)));
    imageIds.push(row.imageUrl === null ? 0 : imageOf.id(row.imageUrl, () => imageUrls.push(row.imageUrl)) + 1);
    const minimumId = minimumOf.id(row.minimumRate, noop);
    rateIds.push(rateOf.id(minimumId * 2 ** 24 + hourlyOf.id(row.hourlyRate, noop), () => rates.push(row.minimumRate, row.hourlyRate)));
    pax.push(row.maxPassengers);
    luggage.push(row.maxLuggage ?? -1);
  }
  // The numeric keys above are exact while every table stays below its bit width (far above real fleets).
  if (nameOf.count >= 2 ** 22 || descriptionOf.count >= 2 ** 22 || typeOf.count >= 2 ** 9 || minimumOf.count >= 2 ** 24 || hourlyOf.count >= 2 ** 24)
    throw new Error("fleet index: too many distinct names, descriptions, types or rates to intern");

  const n = lat.length;
  const latArr = Float64Array.from(lat);
  const lonArr = Float64Array.from(lon);
  const all = buildTree(n, (i) => i, lonArr, latArr, nodeSize);

  // Per-type trees: group ids by type (counting sort), then build each over its members.
  const typeCount = new Uint32Array(typeNames.length);
  for (const t of types) typeCount[t]++;
  const members = typeNames.map((_, t) => new Uint32Array(typeCount[t]));
  const filled = new Uint32Array(typeNames.length);
  for (let i = 0; i < n; i++) members[types[i]][filled[types[i]]++] = i;
  const typeTrees = members.map((ids) => buildTree(ids.length, (k) => ids[k], lonArr, latArr, nodeSize));

  const slugStartArr = Uint32Array.from(slugStart);
  const slugBytes = slugs.data.slice(0, slugs.length);
  const slugText = new TextDecoder("latin1").decode(slugBytes);
  let tableSize = 16;
  while (tableSize < 2 * n) tableSize *= 2;
  const slugTable = new Int32Array(tableSize);
  for (let i = 0; i < n; i++) {
    let h = slugHashOfBytes(slugBytes, slugStartArr[i], slugStartArr[i + 1]) & (tableSize - 1);
    while (slugTable[h] !== 0) h = (h + 1) & (tableSize - 1);
    slugTable[h] = i + 1;
  }

  return {
    size: n,
    all,
    typeNames,
    typeTrees,
    lat: latArr,
    lon: lonArr,
    slugBytes,
    slugText,
    slugStart: slugStartArr,
    slugTable,
    textId: Uint32Array.from(textIds),
    names,
    descriptions,
    textTypes,
    searchTexts,
    netidId: Uint32Array.from(netidIds),
    netids,
    imageId: Uint32Array.from(imageIds),
    imageUrls,
    rateId: Uint32Array.from(rateIds),
    rates,
    maxPassengers: Int32Array.from(pax),
    maxLuggage: Int32Array.from(luggage),
    unlocated,
  };
}

function buildTree(n: number, globalOf: (k: number) => number, lon: Float64Array, lat: Float64Array, nodeSize: number): TreeParts {
  // kdbush sorts the points into its kd layout; only its order is kept (ids mapped to global ids).
  const kd = new KDBush(n, nodeSize, Float64Array);
  for (let k = 0; k < n; k++) {
    const g = globalOf(k);
    kd.add(lon[g], lat[g]);
  }
  kd.finish();
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = globalOf(kd.ids[i]);
  const xyz = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    const lo = lon[ids[i]] * RAD;
    const la = lat[ids[i]] * RAD;
    const c = Math.cos(la);
    xyz[3 * i] = c * Math.cos(lo);
    xyz[3 * i + 1] = c * Math.sin(lo);
    xyz[3 * i + 2] = Math.sin(la);
  }
  const boxes = new Float32Array(6 * nodeSlots(n, nodeSize));
  if (n > 0) fillBoxes(boxes, xyz, 0, 0, n - 1, nodeSize);
  return { ids, xyz, boxes, nodeSize };
}

/** Slots for heap-numbered nodes: 2^(depth+1) − 1 for the deepest range split of n points. */
function nodeSlots(n: number, nodeSize: number): number {
  let depth = 0;
  // Splitting at the middle halves the range each level (kdbush's layout): the deepest path takes the larger half.
  for (let size = n; size - 1 > nodeSize; size = size - (size >> 1)) depth++;
  return n === 0 ? 0 : 2 ** (depth + 1) - 1;
}

/** Bounding box of node `node` (points left…right), from its children and its middle point. */
function fillBoxes(boxes: Float32Array, xyz: Float32Array, node: number, left: number, right: number, nodeSize: number): void {
  let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  const take = (i: number) => {
    const x = xyz[3 * i], y = xyz[3 * i + 1], z = xyz[3 * i + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  };
  const merge = (child: number) => {
    const o = 6 * child;
    if (boxes[o] < minX) minX = boxes[o];
    if (boxes[o + 1] < minY) minY = boxes[o + 1];
    if (boxes[o + 2] < minZ) minZ = boxes[o + 2];
    if (boxes[o + 3] > maxX) maxX = boxes[o + 3];
    if (boxes[o + 4] > maxY) maxY = boxes[o + 4];
    if (boxes[o + 5] > maxZ) maxZ = boxes[o + 5];
  };
  if (right - left <= nodeSize) {
    for (let i = left; i <= right; i++) take(i);
  } else {
    const m = (left + right) >> 1;
    take(m);
    if (m - 1 >= left) {
      fillBoxes(boxes, xyz, 2 * node + 1, left, m - 1, nodeSize);
      merge(2 * node + 1);
    }
    if (right >= m + 1) {
      fillBoxes(boxes, xyz, 2 * node + 2, m + 1, right, nodeSize);
      merge(2 * node + 2);
    }
  }
  const o = 6 * node;
  boxes[o] = minX;
  boxes[o + 1] = minY;
  boxes[o + 2] = minZ;
  boxes[o + 3] = maxX;
  boxes[o + 4] = maxY;
  boxes[o + 5] = maxZ;
}
