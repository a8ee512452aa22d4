import type { IndexRow } from "../../domain/fleet/source";

export type { IndexRow };

/** kd-tree leaf size; small leaves make the count traversal skip more points. */
export const NODE_SIZE = 32;

/** An active entry without a position: what MISSING_GPS warnings need, and what a quote's option shows of it. */
export interface UnlocatedEntry {
  slug: string;
  netid: string;
  type: string;
  searchText: string;
  airports: string[];
  vehicle: Pick<IndexRow, "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "minimumRate" | "hourlyRate" | "currency">;
}

/**
 * One kd-tree over a set of located entries. `data` is a kdbush (v4) index, `KDBush.from(data)`: its header,
 * then its ids, then each point's [lon, lat] (float64), all in tree order (every node is a contiguous range
 * [left, right] split at m = (left + right) >> 1). kdbush's ids are the entries' global ids when they are 32-bit
 * (trees of 65,536 points or more); 16-bit ones are positions in the tree's member list (the entries of its
 * type in id order; for the all-types tree every entry, so the global ids again).
 * Beside it, for the searches: the global ids in tree order (a view of `data` when kdbush's ids are those),
 * unit-sphere points in tree order, and each node's 3-D bounding box (nodes numbered heap-style: children of
 * i are 2i+1, 2i+2).
 */
export interface TreeParts {
  data: ArrayBuffer;
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
  /** Interned (minimum rate, hourly rate, currency) triples: [min, hourly, currency, min, hourly, currency, …]. */
  rates: string[];
  maxPassengers: Int32Array;
  /** −1 is unknown (null). */
  maxLuggage: Int32Array;
  /** The IATA codes each entry lists, an index into `airportLists` (its codes comma-separated; airportLists[0] is ""). */
  airportsId: Uint32Array;
  airportLists: string[];
  unlocated: UnlocatedEntry[];
}

/** The string tables of the parts (and of a ColumnChunk). */
export type StringTables = Pick<
  IndexParts,
  "typeNames" | "names" | "descriptions" | "textTypes" | "searchTexts" | "netids" | "imageUrls" | "rates" | "airportLists"
>;
const TABLES = ["typeNames", "names", "descriptions", "textTypes", "searchTexts", "netids", "imageUrls", "rates", "airportLists"] as const;

/**
 * `T` with its string tables packed into one string and the end offset of every entry: structured clone
 * (postMessage) copies a few big strings far faster than very many small ones (bench/ measures the build).
 */
export type PackedTables<T extends StringTables> = Omit<T, keyof StringTables> & { tables: { text: string; ends: Uint32Array; counts: number[] } };

export function packTables<T extends StringTables>(o: T): PackedTables<T> {
  // imageUrls[0] is always null (no image): only the rest is packed.
  const lists = TABLES.map((key) => (key === "imageUrls" ? (o.imageUrls.slice(1) as string[]) : o[key]));
  const ends = new Uint32Array(lists.reduce((n, l) => n + l.length, 0));
  let i = 0;
  let end = 0;
  for (const list of lists)
    for (const entry of list) {
      end += entry.length;
      ends[i++] = end;
    }
  const rest: Record<string, unknown> = { ...o };
  for (const key of TABLES) delete rest[key];
  return { ...(rest as Omit<T, keyof StringTables>), tables: { text: lists.map((l) => l.join("")).join(""), ends, counts: lists.map((l) => l.length) } };
}

export function unpackTables<T extends StringTables>(p: PackedTables<T>): T {
  const { text, ends, counts } = p.tables;
  const out: Record<string, unknown> = { ...p };
  delete out.tables;
  let i = 0;
  TABLES.forEach((key, t) => {
    const list: Array<string | null> = key === "imageUrls" ? [null] : [];
    for (let k = 0; k < counts[t]; k++, i++) list.push(text.substring(i === 0 ? 0 : ends[i - 1], ends[i]));
    out[key] = list;
  });
  return out as T;
}

/** Every ArrayBuffer of the parts, for postMessage's transfer list. */
export function transferablesOf(parts: IndexParts): ArrayBuffer[] {
  const trees = [parts.all, ...parts.typeTrees];
  const buffers: ArrayBufferLike[] = [
    ...trees.flatMap(treeBuffers),
    parts.slugBytes.buffer,
    parts.slugStart.buffer,
    parts.slugTable.buffer,
    parts.textId.buffer,
    parts.netidId.buffer,
    parts.imageId.buffer,
    parts.rateId.buffer,
    parts.maxPassengers.buffer,
    parts.maxLuggage.buffer,
    parts.airportsId.buffer,
  ];
  return [...new Set(buffers)] as ArrayBuffer[];
}

/** Every ArrayBuffer of a tree, for postMessage's transfer list. */
export function treeBuffers(tree: TreeParts): ArrayBuffer[] {
  return [...new Set([tree.data, tree.ids.buffer as ArrayBuffer, tree.xyz.buffer as ArrayBuffer, tree.boxes.buffer as ArrayBuffer])];
}

/** FNV-1a over the char codes of an ASCII string (slugs are ASCII). */
export function slugHash(slug: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) h = Math.imul(h ^ slug.charCodeAt(i), 16777619);
  return h >>> 0;
}
