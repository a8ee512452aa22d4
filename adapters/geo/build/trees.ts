import KDBush from "kdbush";
import { kdSort } from "../kd-sort";
import { NODE_SIZE, type IndexParts, type IndexRow, type TreeParts } from "../parts";
import { ChunkBuilder, type ColumnChunk } from "./columns";
import { mergeChunks, type ChunkPoints } from "./merge";

/** The tree over every located entry. */
export function buildAllTree(p: Pick<ChunkPoints, "lat" | "lon" | "xyz">, nodeSize: number): TreeParts {
  return buildTree(undefined, p, nodeSize);
}

/**
 * One tree per vehicle type (`typeId` indexes the type names), each over its members in id order; with
 * `wanted`, only the trees of those types (the others are left undefined).
 */
export function buildTypeTrees(p: ChunkPoints, typeId: Uint16Array, typeCount: number, nodeSize: number): TreeParts[];
export function buildTypeTrees(
  p: ChunkPoints,
  typeId: Uint16Array,
  typeCount: number,
  nodeSize: number,
  wanted: (type: number) => boolean,
): Array<TreeParts | undefined>;
export function buildTypeTrees(
  p: ChunkPoints,
  typeId: Uint16Array,
  typeCount: number,
  nodeSize: number,
  wanted?: (type: number) => boolean,
): Array<TreeParts | undefined> {
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
    airportsId: c.airportsId,
    airportLists: c.airportLists,
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

/**
 * A kd-tree over the entries `members` (global ids, ascending; undefined: every entry): a KDBush over their
 * [lon, lat], sorted into kdbush's layout by the port of its sort (kd-sort.ts) in place in its buffer.
 */
function buildTree(members: Uint32Array | undefined, p: Pick<ChunkPoints, "lat" | "lon" | "xyz">, nodeSize: number): TreeParts {
  const { lon, lat } = p;
  const n = members ? members.length : lon.length;
  const kd = new KDBush(n, nodeSize, Float64Array);
  const coords = kd.coords as Float64Array;
  for (let k = 0; k < n; k++) {
    const g = members ? members[k] : k;
    coords[2 * k] = lon[g];
    coords[2 * k + 1] = lat[g];
  }
  // 32-bit kdbush ids hold the global ids, sorted in place; 16-bit ones hold positions in `members`, sorted
  // through a copy (the sort's layout does not depend on what the ids are).
  let ids: Uint32Array;
  if (kd.ids instanceof Uint32Array) {
    ids = kd.ids;
    for (let k = 0; k < n; k++) ids[k] = members ? members[k] : k;
    kdSort(ids, coords, nodeSize, 0, n - 1, 0);
  } else {
    const order = new Uint32Array(n);
    for (let k = 0; k < n; k++) order[k] = k;
    kdSort(order, coords, nodeSize, 0, n - 1, 0);
    kd.ids.set(order);
    ids = order;
    if (members) for (let i = 0; i < n; i++) ids[i] = members[order[i]];
  }
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
  return { data: kd.data as ArrayBuffer, ids, xyz, boxes, nodeSize };
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
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  const take = (i: number) => {
    const x = xyz[3 * i],
      y = xyz[3 * i + 1],
      z = xyz[3 * i + 2];
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
