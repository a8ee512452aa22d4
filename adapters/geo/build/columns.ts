import { searchTextOf } from "../../../domain/fleet/text";
import type { IndexRow, StringTables, UnlocatedEntry } from "../parts";
import { grown } from "../typed-array";

const RAD = Math.PI / 180;

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
  /** Index into `airportLists` (0: none). */
  airportsId: Uint32Array;
  typeNames: string[];
  names: string[];
  descriptions: string[];
  textTypes: string[];
  searchTexts: string[];
  netids: string[];
  imageUrls: Array<string | null>;
  rates: string[];
  /** Each distinct list of airports an entry lists, comma-separated; [0] is "" (none). */
  airportLists: string[];
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
  const arrays = [
    chunk.lat,
    chunk.lon,
    chunk.typeId,
    chunk.slugBytes,
    chunk.slugStart,
    chunk.slugHash,
    chunk.xyz,
    chunk.textId,
    chunk.netidId,
    chunk.imageId,
    chunk.rateId,
    chunk.maxPassengers,
    chunk.maxLuggage,
    chunk.airportsId,
  ];
  return [...new Set(arrays.map((a) => a.buffer))] as ArrayBuffer[];
}

// The numeric intern keys below are exact while every table stays below its bit width (far above real fleets).
const NAME_BITS = 22;
const TYPE_BITS = 9;
const RATE_BITS = 24;

export function checkTableSizes(names: number, descriptions: number, types: number, minimums: number, hourlies: number): void {
  if (names >= 2 ** NAME_BITS || descriptions >= 2 ** NAME_BITS || types >= 2 ** TYPE_BITS || minimums >= 2 ** RATE_BITS || hourlies >= 2 ** RATE_BITS)
    throw new Error("fleet index: too many distinct names, descriptions, types or rates to intern");
}

/** One key for an interned (name, description, type) triple. */
export function textKey(nameId: number, descriptionId: number, typeId: number): number {
  return nameId * 2 ** NAME_BITS * 2 ** TYPE_BITS + descriptionId * 2 ** TYPE_BITS + typeId;
}

export function rateKey(minimumId: number, hourlyId: number): number {
  return minimumId * 2 ** RATE_BITS + hourlyId;
}

/**
 * The id of `key` in `map`, adding it as the next id when new. This runs per row and field: no closure per
 * call, and string and numeric keys go through separate functions so each Map lookup site sees one key type.
 */
export function internString(map: Map<string, number>, key: string): number {
  const id = map.get(key);
  if (id !== undefined) return id;
  const next = map.size;
  map.set(key, next);
  return next;
}

export function internNumber(map: Map<number, number>, key: number): number {
  const id = map.get(key);
  if (id !== undefined) return id;
  const next = map.size;
  map.set(key, next);
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
  private airportsId: Uint32Array;
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
  private readonly airportListIds = new Map<string, number>([["", 0]]);
  private readonly airportLists: string[] = [""];
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
    this.airportsId = new Uint32Array(c);
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
    this.airportsId = grown(this.airportsId, c);
    this.slugStart = grown(this.slugStart, c + 1);
    this.slugHash = grown(this.slugHash, c);
    this.xyz = grown(this.xyz, 3 * c);
  }

  add(row: IndexRow): void {
    if (row.lat === null || row.lon === null) {
      const airports = typeof row.airports === "string" ? (row.airports ? row.airports.split(",") : []) : [...row.airports];
      const { name, description, imageUrl, maxPassengers, maxLuggage, minimumRate, hourlyRate, currency } = row;
      const vehicle = { name, description, imageUrl, maxPassengers, maxLuggage, minimumRate, hourlyRate, currency };
      this.unlocated.push({ slug: row.slug, netid: row.netid, type: row.type, searchText: searchTextOf(row), airports, vehicle });
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
    // Rates are interned with their currency: (minimum, hourly, currency) triples.
    const rateId = internNumber(
      this.rateIds,
      rateKey(internString(this.minimumIds, row.minimumRate), internString(this.hourlyIds, `${row.hourlyRate} ${row.currency}`)),
    );
    if (rateId === rateCount) this.rates.push(row.minimumRate, row.hourlyRate, row.currency);
    this.rateId[i] = rateId;
    this.pax[i] = row.maxPassengers;
    this.luggage[i] = row.maxLuggage ?? -1;
    const airports = typeof row.airports === "string" ? row.airports : row.airports.join(",");
    const listCount = this.airportListIds.size;
    const listId = internString(this.airportListIds, airports);
    if (listId === listCount) this.airportLists.push(airports);
    this.airportsId[i] = listId;
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
      airportsId: this.airportsId.subarray(0, n),
      typeNames: this.typeNames,
      names: this.names,
      descriptions: this.descriptions,
      textTypes: this.textTypes,
      searchTexts: this.searchTexts,
      netids: this.netids,
      imageUrls: this.imageUrls,
      rates: this.rates,
      airportLists: this.airportLists,
      unlocated: this.unlocated,
      ...(this.blocks.index.length > 0 ? { blocks: this.blocks } : {}),
    };
  }
}
