import { checkTableSizes, internNumber, internString, rateKey, textKey, type ChunkBlocks, type ColumnChunk } from "./columns";

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
      airportsId: exact(c.airportsId),
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
    airportsId: new Uint32Array(n),
    typeNames: [],
    names: [],
    descriptions: [],
    textTypes: [],
    searchTexts: [],
    netids: [],
    imageUrls: [null],
    rates: [],
    airportLists: [""],
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
  const airportListIds = new Map<string, number>([["", 0]]);
  // Local id → merged id per chunk and table (−1: not seen yet). Ids are assigned as the rows are copied,
  // block by block in fleet order, so every table comes out in order of first occurrence in the fleet.
  const maps = chunks.map((c) => ({
    type: new Int32Array(c.typeNames.length).fill(-1),
    text: new Int32Array(c.names.length).fill(-1),
    netid: new Int32Array(c.netids.length).fill(-1),
    image: new Int32Array(c.imageUrls.length).fill(-1),
    rate: new Int32Array(c.rates.length / 3).fill(-1),
    airports: new Int32Array(c.airportLists.length).fill(-1),
  }));
  const mergedType = (c: ColumnChunk, local: number): number => mergedString(typeIds, out.typeNames, c.typeNames[local]);
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
  const mergedNetid = (c: ColumnChunk, local: number): number => mergedString(netidIds, out.netids, c.netids[local]);
  // Image 0 is "none" (null): the others follow it.
  const mergedImage = (c: ColumnChunk, local: number): number => {
    const url = c.imageUrls[local];
    return url === null ? 0 : mergedString(imageIds, out.imageUrls, url, 1);
  };
  const mergedRate = (c: ColumnChunk, local: number): number => {
    const minimum = c.rates[3 * local];
    const hourly = c.rates[3 * local + 1];
    const currency = c.rates[3 * local + 2];
    const id = internNumber(rateIds, rateKey(internString(minimumIds, minimum), internString(hourlyIds, `${hourly} ${currency}`)));
    if (3 * id === out.rates.length) out.rates.push(minimum, hourly, currency);
    return id;
  };
  const mergedAirports = (c: ColumnChunk, local: number): number => mergedString(airportListIds, out.airportLists, c.airportLists[local]);

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
      out.typeId[o] = mergedId(m.type, c.typeId[i], c, mergedType);
      out.textId[o] = mergedId(m.text, c.textId[i], c, mergedText);
      out.netidId[o] = mergedId(m.netid, c.netidId[i], c, mergedNetid);
      out.imageId[o] = mergedId(m.image, c.imageId[i], c, mergedImage);
      out.rateId[o] = mergedId(m.rate, c.rateId[i], c, mergedRate);
      out.airportsId[o] = mergedId(m.airports, c.airportsId[i], c, mergedAirports);
    }
    for (let u = block.unlocatedFrom; u < block.unlocatedTo; u++) out.unlocated.push(c.unlocated[u]);
    at += count;
    slugAt += c.slugStart[to] - slugFrom;
  }
  checkTableSizes(nameIds.size, descriptionIds.size, typeIds.size, minimumIds.size, hourlyIds.size);
  return out;
}

/** Chunk-local table id `local` as its merged id: read from the chunk's map, made by `merge` on first use. */
function mergedId(map: Int32Array, local: number, c: ColumnChunk, merge: (c: ColumnChunk, local: number) => number): number {
  const id = map[local];
  return id >= 0 ? id : (map[local] = merge(c, local));
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
  return {
    lat: c.lat.slice(),
    lon: c.lon.slice(),
    xyz: c.xyz.slice(),
    typeId: c.typeId.slice(),
    typeNames: c.typeNames,
    ...(c.blocks ? { blocks: c.blocks } : {}),
  };
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

/**
 * The merged id of `value`: its id in `ids` (after `offset` fixed places of `table`), appended to `table` when that id
 * is the next place there (the value seen for the first time).
 */
function mergedString(ids: Map<string, number>, table: Array<string | null>, value: string, offset = 0): number {
  const id = internString(ids, value) + offset;
  if (id === table.length) table.push(value);
  return id;
}
