import { kdSort } from "./kd-sort";
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

/** The string tables of the parts (and of a ColumnChunk). */
export type StringTables = Pick<IndexParts, "typeNames" | "names" | "descriptions" | "textTypes" | "searchTexts" | "netids" | "imageUrls" | "rates">;
const TABLES = ["typeNames", "names", "descriptions", "textTypes", "searchTexts", "netids", "imageUrls", "rates"] as const;

/**
 * `T` with its string tables packed into one string and the end offset of every entry: structured clone
 * (postMessage) copies a few big strings in microseconds, where ~200K small ones take ~100 ms a hop.
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

/**
 * The columns of some of the active rows (all of them, or one build worker's share), numbered 0…size−1
 * in the order read, with string tables of their own (ids assigned in order of first occurrence).
 * Typed arrays may be views longer-lived buffers; `mergeChunks` puts shares together in order.
 */
export interface ColumnChunk {
  size: number;
  lat: Float64Array;
  lon: Float64Array;
  /** Index into `typeNames`: the type trees are built from it. */
  typeId: Uint16Array;
  slugBytes: Uint8Array;
  /** size + 1 offsets into `slugBytes`, from 0. */
  slugStart: Uint32Array;
  /** slugHash of each slug, computed as it is read (for the slug table). */
  slugHash: Uint32Array;
  /** Each point on the unit sphere (x, y, z), computed once as it is read: the trees gather theirs from it. */
  xyz: Float32Array;
  textId: Uint32Array;
  netidId: Uint32Array;
  imageId: Uint32Array;
  rateId: Uint32Array;
  maxPassengers: Int32Array;
  maxLuggage: Int32Array;
  typeNames: string[];
  names: string[];
  descriptions: string[];
  textTypes: string[];
  searchTexts: string[];
  netids: string[];
  imageUrls: Array<string | null>;
  rates: string[];
  unlocated: UnlocatedEntry[];
  /**
   * When the chunk holds several blocks of the fleet (a build worker's share, taken block by block from a
   * queue shared with the other worker): each block's place in the fleet (`index`) and where its rows and
   * its unlocated entries end in this chunk. Without it the chunk is one block, in chunk order.
   */
  blocks?: ChunkBlocks;
}

export interface ChunkBlocks {
  index: number[];
  rowEnd: number[];
  unlocatedEnd: number[];
}

/** Every ArrayBuffer of a chunk, for postMessage's transfer list. */
export function chunkTransferables(chunk: Omit<ColumnChunk, keyof StringTables>): ArrayBuffer[] {
  const arrays = [chunk.lat, chunk.lon, chunk.typeId, chunk.slugBytes, chunk.slugStart, chunk.slugHash, chunk.xyz, chunk.textId, chunk.netidId, chunk.imageId, chunk.rateId, chunk.maxPassengers, chunk.maxLuggage];
  return [...new Set(arrays.map((a) => a.buffer))] as ArrayBuffer[];
}

// The numeric intern keys below are exact while every table stays below its bit width (far above real fleets).
const NAME_BITS = 22;
const TYPE_BITS = 9;
const RATE_BITS = 24;

function checkTableSizes(names: number, descriptions: number, types: number, minimums: number, hourlies: number): void {
  if (names >= 2 ** NAME_BITS || descriptions >= 2 ** NAME_BITS || types >= 2 ** TYPE_BITS || minimums >= 2 ** RATE_BITS || hourlies >= 2 ** RATE_BITS)
    throw new Error("fleet index: too many distinct names, descriptions, types or rates to intern");
}

/** One key for an interned (name, description, type) triple. */
function textKey(nameId: number, descriptionId: number, typeId: number): number {
  return nameId * 2 ** NAME_BITS * 2 ** TYPE_BITS + descriptionId * 2 ** TYPE_BITS + typeId;
}

function rateKey(minimumId: number, hourlyId: number): number {
  return minimumId * 2 ** RATE_BITS + hourlyId;
}

/**
 * The id of `key` in `map`, adding it as the next id when new. This runs per row and field: no closure per
 * call, and string and numeric keys go through separate functions so each Map lookup site sees one key type.
 */
function internString(map: Map<string, number>, key: string): number {
  const id = map.get(key);
  if (id !== undefined) return id;
  const next = map.size;
  map.set(key, next);
  return next;
}

function internNumber(map: Map<number, number>, key: number): number {
  const id = map.get(key);
  if (id !== undefined) return id;
  const next = map.size;
  map.set(key, next);
  return next;
}

function grown<T extends Float64Array | Float32Array | Uint32Array | Uint16Array | Int32Array | Uint8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

/**
 * Builds a ColumnChunk row by row, into preallocated typed arrays (grown by doubling when the hint was
 * short). Per row it does the least it can: numbers straight into columns, the slug's bytes appended,
 * each string field interned by a Map lookup; per-text work (search text) happens once per distinct text.
 */
export class ChunkBuilder {
  private n = 0;
  private capacity: number;
  private lat: Float64Array;
  private lon: Float64Array;
  private typeId: Uint16Array;
  private textId: Uint32Array;
  private netidId: Uint32Array;
  private imageId: Uint32Array;
  private rateId: Uint32Array;
  private pax: Int32Array;
  private luggage: Int32Array;
  private slugStart: Uint32Array;
  private slugHash: Uint32Array;
  private xyz: Float32Array;
  private slugBytes: Uint8Array;
  private slugLength = 0;
  private readonly typeIds = new Map<string, number>();
  private readonly typeNames: string[] = [];
  private readonly nameIds = new Map<string, number>();
  private readonly descriptionIds = new Map<string, number>();
  private readonly textIds = new Map<number, number>();
  private readonly names: string[] = [];
  private readonly descriptions: string[] = [];
  private readonly textTypes: string[] = [];
  private readonly searchTexts: string[] = [];
  private readonly netidIds = new Map<string, number>();
  private readonly netids: string[] = [];
  private readonly imageIds = new Map<string, number>();
  private readonly imageUrls: Array<string | null> = [null];
  private readonly minimumIds = new Map<string, number>();
  private readonly hourlyIds = new Map<string, number>();
  private readonly rateIds = new Map<number, number>();
  private readonly rates: string[] = [];
  private readonly unlocated: UnlocatedEntry[] = [];
  private readonly blocks: ChunkBlocks = { index: [], rowEnd: [], unlocatedEnd: [] };

  constructor(capacityHint = 64) {
    const c = Math.max(16, Math.min(capacityHint, 1 << 24));
    this.capacity = c;
    this.lat = new Float64Array(c);
    this.lon = new Float64Array(c);
    this.typeId = new Uint16Array(c);
    this.textId = new Uint32Array(c);
    this.netidId = new Uint32Array(c);
    this.imageId = new Uint32Array(c);
    this.rateId = new Uint32Array(c);
    this.pax = new Int32Array(c);
    this.luggage = new Int32Array(c);
    this.slugStart = new Uint32Array(c + 1);
    this.slugHash = new Uint32Array(c);
    this.xyz = new Float32Array(3 * c);
    this.slugBytes = new Uint8Array(c * 40);
  }

  private grow(): void {
    const c = this.capacity * 2;
    this.capacity = c;
    this.lat = grown(this.lat, c);
    this.lon = grown(this.lon, c);
    this.typeId = grown(this.typeId, c);
    this.textId = grown(this.textId, c);
    this.netidId = grown(this.netidId, c);
    this.imageId = grown(this.imageId, c);
    this.rateId = grown(this.rateId, c);
    this.pax = grown(this.pax, c);
    this.luggage = grown(this.luggage, c);
    this.slugStart = grown(this.slugStart, c + 1);
    this.slugHash = grown(this.slugHash, c);
    this.xyz = grown(this.xyz, 3 * c);
  }

  add(row: IndexRow): void {
    if (row.lat === null || row.lon === null) {
      const airports = typeof row.airports === "string" ? (row.airports ? row.airports.split(",") : []) : [...row.airports];
      this.unlocated.push({ slug: row.slug, netid: row.netid, type: row.type, searchText: searchTextOf(row), airports });
      return;
    }
    const i = this.n;
    if (i === this.capacity) this.grow();
    const lat = row.lat;
    const lon = row.lon;
    this.lat[i] = lat;
    this.lon[i] = lon;
    const lo = lon * RAD;
    const la = lat * RAD;
    const cosLat = Math.cos(la);
    this.xyz[3 * i] = cosLat * Math.cos(lo);
    this.xyz[3 * i + 1] = cosLat * Math.sin(lo);
    this.xyz[3 * i + 2] = Math.sin(la);

    // Slugs are ASCII: one byte per char, hashed (FNV-1a over the bytes, as slugHash over the chars) on the way.
    const slug = row.slug;
    let at = this.slugLength;
    if (at + slug.length > this.slugBytes.length) this.slugBytes = grown(this.slugBytes, Math.max(2 * this.slugBytes.length, at + slug.length));
    const bytes = this.slugBytes;
    let h = 0x811c9dc5;
    for (let k = 0; k < slug.length; k++) {
      const b = slug.charCodeAt(k) & 0x7f;
      bytes[at++] = b;
      h = Math.imul(h ^ b, 16777619);
    }
    this.slugLength = at;
    this.slugStart[i + 1] = at;
    this.slugHash[i] = h >>> 0;

    // Each field interned by itself (no per-row key strings), then the (name, description, type) triple by number.
    const typeCount = this.typeIds.size;
    const typeId = internString(this.typeIds, row.type);
    if (typeId === typeCount) this.typeNames.push(row.type);
    this.typeId[i] = typeId;
    const textCount = this.textIds.size;
    const textId = internNumber(this.textIds, textKey(internString(this.nameIds, row.name), internString(this.descriptionIds, row.description), typeId));
    if (textId === textCount) {
      this.names.push(row.name);
      this.descriptions.push(row.description);
      this.textTypes.push(row.type);
      this.searchTexts.push(searchTextOf(row));
    }
    this.textId[i] = textId;
    const netidCount = this.netidIds.size;
    const netidId = internString(this.netidIds, row.netid);
    if (netidId === netidCount) this.netids.push(row.netid);
    this.netidId[i] = netidId;
    const imageUrl = row.imageUrl;
    if (imageUrl === null) this.imageId[i] = 0;
    else {
      const imageCount = this.imageIds.size;
      const imageId = internString(this.imageIds, imageUrl);
      if (imageId === imageCount) this.imageUrls.push(imageUrl);
      this.imageId[i] = imageId + 1;
    }
    const rateCount = this.rateIds.size;
    const rateId = internNumber(this.rateIds, rateKey(internString(this.minimumIds, row.minimumRate), internString(this.hourlyIds, row.hourlyRate)));
    if (rateId === rateCount) this.rates.push(row.minimumRate, row.hourlyRate);
    this.rateId[i] = rateId;
    this.pax[i] = row.maxPassengers;
    this.luggage[i] = row.maxLuggage ?? -1;
    this.n = i + 1;
  }

  /** Rows added from now on belong to fleet block `index` (until the next call). */
  startBlock(index: number): void {
    this.endBlock();
    this.blocks.index.push(index);
  }

  private endBlock(): void {
    const b = this.blocks;
    if (b.index.length > b.rowEnd.length) {
      b.rowEnd.push(this.n);
      b.unlocatedEnd.push(this.unlocated.length);
    }
  }

  /** The chunk read so far (views of the builder's arrays: add no more rows after this). */
  finish(): ColumnChunk {
    this.endBlock();
    checkTableSizes(this.nameIds.size, this.descriptionIds.size, this.typeIds.size, this.minimumIds.size, this.hourlyIds.size);
    const n = this.n;
    return {
      size: n,
      lat: this.lat.subarray(0, n),
      lon: this.lon.subarray(0, n),
      typeId: this.typeId.subarray(0, n),
      slugBytes: this.slugBytes.subarray(0, this.slugLength),
      slugStart: this.slugStart.subarray(0, n + 1),
      slugHash: this.slugHash.subarray(0, n),
      xyz: this.xyz.subarray(0, 3 * n),
      textId: this.textId.subarray(0, n),
      netidId: this.netidId.subarray(0, n),
      imageId: this.imageId.subarray(0, n),
      rateId: this.rateId.subarray(0, n),
      maxPassengers: this.pax.subarray(0, n),
      maxLuggage: this.luggage.subarray(0, n),
      typeNames: this.typeNames,
      names: this.names,
      descriptions: this.descriptions,
      textTypes: this.textTypes,
      searchTexts: this.searchTexts,
      netids: this.netids,
      imageUrls: this.imageUrls,
      rates: this.rates,
      unlocated: this.unlocated,
      ...(this.blocks.index.length > 0 ? { blocks: this.blocks } : {}),
    };
  }
}

/** The array itself when it spans its whole buffer, else an exact copy (so no unused capacity is kept). */
function exact<T extends Float64Array | Float32Array | Uint32Array | Uint16Array | Int32Array | Uint8Array>(array: T): T {
  return array.byteOffset === 0 && array.byteLength === array.buffer.byteLength ? array : (array.slice() as T);
}

/**
 * Puts chunks (consecutive shares of the rows, in order) together into one: entries numbered in chunk
 * order, string tables merged in order of first occurrence — exactly what one builder fed every row in
 * that order would have produced.
 */
export function mergeChunks(chunks: readonly ColumnChunk[]): ColumnChunk {
  if (chunks.length === 1) {
    const c = chunks[0];
    return {
      ...c,
      lat: exact(c.lat),
      lon: exact(c.lon),
      typeId: exact(c.typeId),
      slugBytes: exact(c.slugBytes),
      slugStart: exact(c.slugStart),
      slugHash: exact(c.slugHash),
      xyz: exact(c.xyz),
      textId: exact(c.textId),
      netidId: exact(c.netidId),
      imageId: exact(c.imageId),
      rateId: exact(c.rateId),
      maxPassengers: exact(c.maxPassengers),
      maxLuggage: exact(c.maxLuggage),
    };
  }
  let n = 0;
  let slugTotal = 0;
  for (const c of chunks) {
    n += c.size;
    slugTotal += c.slugStart[c.size];
  }
  const out: ColumnChunk = {
    size: n,
    lat: new Float64Array(n),
    lon: new Float64Array(n),
    typeId: new Uint16Array(n),
    slugBytes: new Uint8Array(slugTotal),
    slugStart: new Uint32Array(n + 1),
    slugHash: new Uint32Array(n),
    xyz: new Float32Array(3 * n),
    textId: new Uint32Array(n),
    netidId: new Uint32Array(n),
    imageId: new Uint32Array(n),
    rateId: new Uint32Array(n),
    maxPassengers: new Int32Array(n),
    maxLuggage: new Int32Array(n),
    typeNames: [],
    names: [],
    descriptions: [],
    textTypes: [],
    searchTexts: [],
    netids: [],
    imageUrls: [null],
    rates: [],
    unlocated: [],
  };
  const typeIds = new Map<string, number>();
  const nameIds = new Map<string, number>();
  const descriptionIds = new Map<string, number>();
  const textIds = new Map<number, number>();
  const netidIds = new Map<string, number>();
  const imageIds = new Map<string, number>();
  const minimumIds = new Map<string, number>();
  const hourlyIds = new Map<string, number>();
  const rateIds = new Map<number, number>();
  // Local id → merged id per chunk and table (−1: not seen yet). Ids are assigned as the rows are copied,
  // block by block in fleet order, so every table comes out in order of first occurrence in the fleet.
  const maps = chunks.map((c) => ({
    type: new Int32Array(c.typeNames.length).fill(-1),
    text: new Int32Array(c.names.length).fill(-1),
    netid: new Int32Array(c.netids.length).fill(-1),
    image: new Int32Array(c.imageUrls.length).fill(-1),
    rate: new Int32Array(c.rates.length / 2).fill(-1),
  }));
  const mergedType = (c: ColumnChunk, local: number): number => {
    const name = c.typeNames[local];
    const id = internString(typeIds, name);
    if (id === out.typeNames.length) out.typeNames.push(name);
    return id;
  };
  const mergedText = (c: ColumnChunk, local: number): number => {
    const name = c.names[local];
    const description = c.descriptions[local];
    const type = c.textTypes[local];
    const id = internNumber(textIds, textKey(internString(nameIds, name), internString(descriptionIds, description), internString(typeIds, type)));
    if (id === out.names.length) {
      out.names.push(name);
      out.descriptions.push(description);
      out.textTypes.push(type);
      out.searchTexts.push(c.searchTexts[local]);
    }
    return id;
  };
  const mergedNetid = (c: ColumnChunk, local: number): number => {
    const netid = c.netids[local];
    const id = internString(netidIds, netid);
    if (id === out.netids.length) out.netids.push(netid);
    return id;
  };
  const mergedImage = (c: ColumnChunk, local: number): number => {
    const url = c.imageUrls[local];
    if (url === null) return 0;
    const id = internString(imageIds, url) + 1;
    if (id === out.imageUrls.length) out.imageUrls.push(url);
    return id;
  };
  const mergedRate = (c: ColumnChunk, local: number): number => {
    const minimum = c.rates[2 * local];
    const hourly = c.rates[2 * local + 1];
    const id = internNumber(rateIds, rateKey(internString(minimumIds, minimum), internString(hourlyIds, hourly)));
    if (2 * id === out.rates.length) out.rates.push(minimum, hourly);
    return id;
  };

  const blocks = chunks.flatMap((c, k) => {
    const b = c.blocks ?? { index: [k], rowEnd: [c.size], unlocatedEnd: [c.unlocated.length] };
    return b.index.map((index, j) => ({
      index,
      chunk: k,
      from: j === 0 ? 0 : b.rowEnd[j - 1],
      to: b.rowEnd[j],
      unlocatedFrom: j === 0 ? 0 : b.unlocatedEnd[j - 1],
      unlocatedTo: b.unlocatedEnd[j],
    }));
  });
  blocks.sort((a, b) => a.index - b.index);
  let at = 0;
  let slugAt = 0;
  for (const block of blocks) {
    const c = chunks[block.chunk];
    const m = maps[block.chunk];
    const { from, to } = block;
    const count = to - from;
    out.lat.set(c.lat.subarray(from, to), at);
    out.lon.set(c.lon.subarray(from, to), at);
    out.maxPassengers.set(c.maxPassengers.subarray(from, to), at);
    out.maxLuggage.set(c.maxLuggage.subarray(from, to), at);
    out.slugHash.set(c.slugHash.subarray(from, to), at);
    out.xyz.set(c.xyz.subarray(3 * from, 3 * to), 3 * at);
    const slugFrom = c.slugStart[from];
    out.slugBytes.set(c.slugBytes.subarray(slugFrom, c.slugStart[to]), slugAt);
    offsetStarts(out.slugStart, at, c.slugStart, from, to, slugAt - slugFrom);
    for (let i = from; i < to; i++) {
      // Row by row, in fleet order: a table entry gets its merged id where the fleet first uses it.
      const o = at + i - from;
      let t = m.type[c.typeId[i]];
      if (t < 0) t = m.type[c.typeId[i]] = mergedType(c, c.typeId[i]);
      out.typeId[o] = t;
      let x = m.text[c.textId[i]];
      if (x < 0) x = m.text[c.textId[i]] = mergedText(c, c.textId[i]);
      out.textId[o] = x;
      let d = m.netid[c.netidId[i]];
      if (d < 0) d = m.netid[c.netidId[i]] = mergedNetid(c, c.netidId[i]);
      out.netidId[o] = d;
      let g = m.image[c.imageId[i]];
      if (g < 0) g = m.image[c.imageId[i]] = mergedImage(c, c.imageId[i]);
      out.imageId[o] = g;
      let r = m.rate[c.rateId[i]];
      if (r < 0) r = m.rate[c.rateId[i]] = mergedRate(c, c.rateId[i]);
      out.rateId[o] = r;
    }
    for (let u = block.unlocatedFrom; u < block.unlocatedTo; u++) out.unlocated.push(c.unlocated[u]);
    at += count;
    slugAt += c.slugStart[to] - slugFrom;
  }
  checkTableSizes(nameIds.size, descriptionIds.size, typeIds.size, minimumIds.size, hourlyIds.size);
  return out;
}

function offsetStarts(target: Uint32Array, at: number, local: Uint32Array, from: number, to: number, shift: number): void {
  for (let i = from + 1; i <= to; i++) target[at + i - from] = local[i] + shift;
}

/** A chunk's points (what the all-types tree is built from), copied out for the worker that builds it. */
export interface ChunkPoints {
  lat: Float64Array;
  lon: Float64Array;
  xyz: Float32Array;
  /** Each point's vehicle type, an index into `typeNames`. */
  typeId: Uint16Array;
  typeNames: string[];
  /** As ColumnChunk.blocks: the points are put in fleet order by block. */
  blocks?: ChunkBlocks;
}

export function pointsOf(c: ColumnChunk): ChunkPoints {
  return { lat: c.lat.slice(), lon: c.lon.slice(), xyz: c.xyz.slice(), typeId: c.typeId.slice(), typeNames: c.typeNames, ...(c.blocks ? { blocks: c.blocks } : {}) };
}

export function pointBuffers(p: ChunkPoints): ArrayBuffer[] {
  return [p.lat.buffer, p.lon.buffer, p.xyz.buffer, p.typeId.buffer] as ArrayBuffer[];
}

/**
 * The points of chunks, in fleet order (by block, as mergeChunks puts the rows), with the types numbered
 * as mergeChunks numbers them (in order of first occurrence in the fleet).
 */
export function concatPoints(points: readonly ChunkPoints[]): ChunkPoints {
  if (points.length === 1 && !points[0].blocks) return points[0];
  let n = 0;
  for (const p of points) n += p.lat.length;
  const out: ChunkPoints = { lat: new Float64Array(n), lon: new Float64Array(n), xyz: new Float32Array(3 * n), typeId: new Uint16Array(n), typeNames: [] };
  const typeIds = new Map<string, number>();
  const maps = points.map((p) => new Int32Array(p.typeNames.length).fill(-1));
  const blocks = points.flatMap((p, k) => {
    const b = p.blocks ?? { index: [k], rowEnd: [p.lat.length], unlocatedEnd: [] };
    return b.index.map((index, j) => ({ index, k, from: j === 0 ? 0 : b.rowEnd[j - 1], to: b.rowEnd[j] }));
  });
  blocks.sort((a, b) => a.index - b.index);
  let at = 0;
  for (const { k, from, to } of blocks) {
    const p = points[k];
    const map = maps[k];
    out.lat.set(p.lat.subarray(from, to), at);
    out.lon.set(p.lon.subarray(from, to), at);
    out.xyz.set(p.xyz.subarray(3 * from, 3 * to), 3 * at);
    for (let i = from; i < to; i++) {
      const local = p.typeId[i];
      let t = map[local];
      if (t < 0) {
        const name = p.typeNames[local];
        t = map[local] = internString(typeIds, name);
        if (t === out.typeNames.length) out.typeNames.push(name);
      }
      out.typeId[at + i - from] = t;
    }
    at += to - from;
  }
  return out;
}

/** The tree over every located entry. */
export function buildAllTree(p: Pick<ChunkPoints, "lat" | "lon" | "xyz">, nodeSize: number): TreeParts {
  const ids = new Uint32Array(p.lon.length);
  for (let i = 0; i < ids.length; i++) ids[i] = i;
  return buildTree(ids, p, nodeSize);
}

/**
 * One tree per vehicle type (`typeId` indexes the type names), each over its members in id order; with
 * `wanted`, only the trees of those types (the others are left undefined).
 */
export function buildTypeTrees(p: ChunkPoints, typeId: Uint16Array, typeCount: number, nodeSize: number): TreeParts[];
export function buildTypeTrees(p: ChunkPoints, typeId: Uint16Array, typeCount: number, nodeSize: number, wanted: (type: number) => boolean): Array<TreeParts | undefined>;
export function buildTypeTrees(p: ChunkPoints, typeId: Uint16Array, typeCount: number, nodeSize: number, wanted?: (type: number) => boolean): Array<TreeParts | undefined> {
  // Group ids by type (counting sort), then build each tree over its members.
  const count = new Uint32Array(typeCount);
  for (let i = 0; i < typeId.length; i++) count[typeId[i]]++;
  const members = Array.from(count, (c) => new Uint32Array(c));
  const filled = new Uint32Array(typeCount);
  for (let i = 0; i < typeId.length; i++) {
    const t = typeId[i];
    members[t][filled[t]++] = i;
  }
  return members.map((ids, t) => (!wanted || wanted(t) ? buildTree(ids, p, nodeSize) : undefined));
}

/** The slug lookup table and the slugs as one string (built once the columns are complete). */
export function slugLookup(slugBytes: Uint8Array, slugHash: Uint32Array, n: number): { slugTable: Int32Array; slugText: string } {
  const slugText = new TextDecoder("latin1").decode(slugBytes);
  let tableSize = 16;
  while (tableSize < 2 * n) tableSize *= 2;
  const slugTable = new Int32Array(tableSize);
  for (let i = 0; i < n; i++) {
    let h = slugHash[i] & (tableSize - 1);
    while (slugTable[h] !== 0) h = (h + 1) & (tableSize - 1);
    slugTable[h] = i + 1;
  }
  return { slugTable, slugText };
}

/** The index parts of complete columns and their trees. */
export function assembleParts(c: ColumnChunk, all: TreeParts, typeTrees: TreeParts[], slugs: { slugTable: Int32Array; slugText: string }): IndexParts {
  return {
    size: c.size,
    all,
    typeNames: c.typeNames,
    typeTrees,
    lat: c.lat,
    lon: c.lon,
    slugBytes: c.slugBytes,
    slugText: slugs.slugText,
    slugStart: c.slugStart,
    slugTable: slugs.slugTable,
    textId: c.textId,
    names: c.names,
    descriptions: c.descriptions,
    textTypes: c.textTypes,
    searchTexts: c.searchTexts,
    netidId: c.netidId,
    netids: c.netids,
    imageId: c.imageId,
    imageUrls: c.imageUrls,
    rateId: c.rateId,
    rates: c.rates,
    maxPassengers: c.maxPassengers,
    maxLuggage: c.maxLuggage,
    unlocated: c.unlocated,
  };
}

/** The whole index of complete columns, on this thread. */
export function partsOfColumns(c: ColumnChunk, nodeSize = NODE_SIZE): IndexParts {
  const all = buildAllTree(c, nodeSize);
  const typeTrees = buildTypeTrees(c, c.typeId, c.typeNames.length, nodeSize);
  return assembleParts(c, all, typeTrees, slugLookup(c.slugBytes, c.slugHash, c.size));
}

/**
 * Builds the whole index from the active rows, in one pass plus the kd-tree sorts. Pure and
 * synchronous: runs in a build worker (rows read there from SQLite) or in-process.
 */
export function buildIndexParts(rows: Iterable<IndexRow>, nodeSize = NODE_SIZE, capacityHint?: number): IndexParts {
  const builder = new ChunkBuilder(capacityHint ?? (Array.isArray(rows) ? rows.length : undefined));
  for (const row of rows) builder.add(row);
  return partsOfColumns(mergeChunks([builder.finish()]), nodeSize);
}

/** A kd-tree over the points `ids` (global ids, permuted in place into tree order). */
function buildTree(ids: Uint32Array, p: Pick<ChunkPoints, "lat" | "lon" | "xyz">, nodeSize: number): TreeParts {
  const n = ids.length;
  const { lon, lat } = p;
  const coords = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    const g = ids[k];
    coords[2 * k] = lon[g];
    coords[2 * k + 1] = lat[g];
  }
  kdSort(ids, coords, nodeSize, 0, n - 1, 0);
  const xyz = new Float32Array(3 * n);
  const all = p.xyz;
  for (let i = 0; i < n; i++) {
    const g = 3 * ids[i];
    xyz[3 * i] = all[g];
    xyz[3 * i + 1] = all[g + 1];
    xyz[3 * i + 2] = all[g + 2];
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
