/// <reference lib="webworker" />
// Builds the fleet index off the main thread. Given the database path it reads the active fleet itself
// on a read-only connection, so a million rows never become objects on the main thread; the built
// columns and trees are transferred back, not copied.
//
// A big fleet is built by two of these workers in steps (see KdFleetSearchIndex): each reads its share of
// the rows (`read`) and returns it with a copy of its points; then one merges the shares and builds the
// slug table and the per-type trees (`merge`) while the other builds the all-types tree from the points
// (`allTree`).
import { Database } from "bun:sqlite";
import { activeIndexRows, readFleetStamp } from "../sqlite/fleet-repository";
import type { FleetStamp } from "./index-file";
import {
  assembleParts,
  buildAllTree,
  buildIndexParts,
  buildTypeTrees,
  ChunkBuilder,
  chunkTransferables,
  concatPoints,
  mergeChunks,
  NODE_SIZE,
  packTables,
  pointBuffers,
  pointsOf,
  slugLookup,
  transferablesOf,
  type ChunkPoints,
  type ColumnChunk,
  type IndexParts,
  type IndexRow,
  type PackedTables,
  type TreeParts,
  unpackTables,
} from "./index-parts";

declare const self: Worker;

const COLLECT_EVERY_ROWS = 16_384;

/**
 * Frees this worker's garbage now: called before a final reply, so the memory is back with the system by
 * the time the caller (which then ends the worker) turns ready, not ~100 ms after the thread exits.
 */
function collectNow(): void {
  Bun.gc(true);
}

/** What to build from: the database file (read here), or rows read by the caller. */
export type BuildJob = { dbPath: string; nodeSize?: number } | { rows: IndexRow[]; nodeSize?: number };

/** One step of a build shared by two workers. */
export type BuildStep =
  /** Read blocks of the fleet into a chunk (see ReadJob); says `started` once its snapshot is fixed. */
  | { read: ReadJob }
  /** Merge the chunks into the columns, build the slug table and the trees of the types not in `notTypes`. */
  | { merge: Array<PackedTables<ColumnChunk>>; notTypes: string[]; nodeSize?: number }
  /**
   * Build the all-types tree over the chunks' points, and the trees of `types`. With `typesLater`, the
   * all-types tree is sent first (a `partial` reply) and the type trees after it, in the final reply.
   */
  | { allTree: ChunkPoints[]; types: string[]; nodeSize?: number; typesLater?: boolean };

/**
 * The fleet split into `blockCount` blocks of `blockRows` rowids from `firstRowid` (the first and last open
 * towards their end); both workers take the next block from a shared counter until none is left, so
 * neither waits for the other at the end of the reads.
 */
export interface ReadJob {
  dbPath: string;
  queue: SharedArrayBuffer;
  firstRowid: number;
  blockRows: number;
  blockCount: number;
  capacityHint?: number;
}

export type BuildRequest = (BuildJob | BuildStep) & { id: number };

/**
 * A worker's answer: progress (`started`) first, then exactly one of the results or `error`. String tables
 * travel packed (see packTables); the receiver unpacks them.
 */
export interface BuildReply {
  id: number;
  started?: true;
  /** A part of the result sent ahead of the final reply (the all-types tree of a `typesLater` step). */
  partial?: true;
  parts?: PackedTables<IndexParts>;
  chunk?: PackedTables<ColumnChunk>;
  points?: ChunkPoints;
  tree?: TreeParts;
  /** Type trees built by this step, by type name (the merged parts' typeTrees are left empty). */
  typeTrees?: { names: string[]; trees: TreeParts[] };
  /** With `parts` read from the database: the fleet stamp of the snapshot they were read from. */
  stamp?: FleetStamp;
  error?: string;
}

function treeBuffers(trees: TreeParts[]): ArrayBuffer[] {
  return [...new Set(trees.flatMap((t) => [t.ids.buffer, t.xyz.buffer, t.boxes.buffer]))] as ArrayBuffer[];
}

/** The trees of the types `wanted` (by name), for a reply. */
function someTypeTrees(points: ChunkPoints, nodeSize: number, wanted: (name: string) => boolean): { names: string[]; trees: TreeParts[] } {
  const built = buildTypeTrees(points, points.typeId, points.typeNames.length, nodeSize, (t) => wanted(points.typeNames[t]));
  const names: string[] = [];
  const trees: TreeParts[] = [];
  built.forEach((tree, t) => {
    if (tree) {
      names.push(points.typeNames[t]);
      trees.push(tree);
    }
  });
  return { names, trees };
}

function reply(message: BuildReply, transfer: ArrayBuffer[] = []): void {
  self.postMessage(message, transfer);
}

function replyParts(id: number, parts: IndexParts, stamp: FleetStamp | undefined): void {
  const packed = packTables(parts);
  reply({ id, parts: packed, stamp }, [...transferablesOf(parts), packed.tables.ends.buffer as ArrayBuffer]);
}

/** Reads, in one read transaction, blocks from the shared queue; `onStarted` runs once the snapshot is fixed. */
function readChunk(job: ReadJob, onStarted: () => void): ColumnChunk {
  const db = new Database(job.dbPath, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN");
    // The first read fixes the transaction's snapshot (WAL): from here on every read sees that moment.
    db.query("SELECT 1 FROM fleet_entries LIMIT 1").get();
    onStarted();
    const builder = new ChunkBuilder(job.capacityHint);
    const queue = new Int32Array(job.queue);
    let sinceCollect = 0;
    for (let block = Atomics.add(queue, 0, 1); block < job.blockCount; block = Atomics.add(queue, 0, 1)) {
      builder.startBlock(block);
      const after = block === 0 ? undefined : job.firstRowid - 1 + block * job.blockRows;
      const upTo = block === job.blockCount - 1 ? undefined : job.firstRowid - 1 + (block + 1) * job.blockRows;
      for (const row of activeIndexRows(db, { after, upTo })) {
        builder.add(row);
        // Every row leaves an object and a dozen strings behind: collecting often keeps the heap (and the
        // process's resident memory) small instead of letting garbage pile up between rare collections.
        if (++sinceCollect === COLLECT_EVERY_ROWS) {
          sinceCollect = 0;
          Bun.gc(false);
        }
      }
    }
    db.exec("COMMIT");
    return builder.finish();
  } finally {
    db.close();
  }
}

self.onmessage = (event: MessageEvent<BuildRequest>) => {
  const request = event.data;
  try {
    if ("read" in request) {
      const chunk = readChunk(request.read, () => reply({ id: request.id, started: true }));
      // The copy is made here, in parallel with the other reader, rather than on the main thread.
      const points = pointsOf(chunk);
      const packed = packTables(chunk);
      reply({ id: request.id, chunk: packed, points }, [...chunkTransferables(chunk), ...pointBuffers(points), packed.tables.ends.buffer as ArrayBuffer]);
      collectNow();
    } else if ("merge" in request) {
      const nodeSize = request.nodeSize ?? NODE_SIZE;
      const columns = mergeChunks(request.merge.map(unpackTables));
      // The shares are merged: let them go now, so their memory is back with the system by the end.
      request.merge = [];
      collectNow();
      const notHere = new Set(request.notTypes);
      const typeTrees = someTypeTrees(columns, nodeSize, (name) => !notHere.has(name));
      const slugs = slugLookup(columns.slugBytes, columns.slugHash, columns.size);
      // The all-types tree comes from the other worker (an empty one stands in for it), the type trees beside.
      const parts = assembleParts(columns, buildAllTree({ lat: new Float64Array(0), lon: new Float64Array(0), xyz: new Float32Array(0) }, nodeSize), [], slugs);
      collectNow();
      const packed = packTables(parts);
      reply({ id: request.id, parts: packed, typeTrees }, [...transferablesOf(parts), packed.tables.ends.buffer as ArrayBuffer, ...treeBuffers(typeTrees.trees)]);
    } else if ("allTree" in request) {
      const nodeSize = request.nodeSize ?? NODE_SIZE;
      const points = concatPoints(request.allTree);
      request.allTree = [];
      const tree = buildAllTree(points, nodeSize);
      if (request.typesLater) {
        reply({ id: request.id, partial: true, tree }, treeBuffers([tree]));
        const here = new Set(request.types);
        const typeTrees = someTypeTrees(points, nodeSize, (name) => here.has(name));
        collectNow();
        reply({ id: request.id, typeTrees }, treeBuffers(typeTrees.trees));
        return;
      }
      const here = new Set(request.types);
      const typeTrees = someTypeTrees(points, nodeSize, (name) => here.has(name));
      collectNow();
      reply({ id: request.id, tree, typeTrees }, treeBuffers([tree, ...typeTrees.trees]));
    } else {
      let parts;
      let stamp: FleetStamp | undefined;
      if ("dbPath" in request) {
        const db = new Database(request.dbPath, { readonly: true });
        try {
          db.exec("PRAGMA busy_timeout = 5000");
          // One read transaction: the whole fleet as of one moment.
          db.exec("BEGIN");
          stamp = readFleetStamp(db);
          parts = buildIndexParts(activeIndexRows(db), request.nodeSize);
          db.exec("COMMIT");
        } finally {
          db.close();
        }
      } else parts = buildIndexParts(request.rows, request.nodeSize);
      if ("rows" in request) request.rows = [];
      collectNow();
      replyParts(request.id, parts, stamp);
    }
  } catch (error) {
    reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
};
