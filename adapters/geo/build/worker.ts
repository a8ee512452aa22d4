/// <reference lib="webworker" />
// The fleet index build worker's code (its entry point, which gives it the fleet source's opener, is under
// src/workers/). Given the source's location it reads the active fleet itself on its own connection, so a
// million rows never become objects on the main thread; the built columns and trees are transferred back,
// not copied.
//
// A big fleet is built by two of these workers in steps (see builder.ts): each reads its share of the rows
// (`read`) and returns it with a copy of its points; then one merges the shares and builds the slug table
// and the per-type trees (`merge`) while the other builds the all-types tree from the points (`allTree`).
import type { FleetStamp } from "../../../domain/fleet/source";
import { packTables, transferablesOf, treeBuffers, unpackTables, NODE_SIZE, type IndexParts, type TreeParts } from "../parts";
import { ChunkBuilder, chunkTransferables, type ColumnChunk } from "./columns";
import { concatPoints, mergeChunks, pointBuffers, pointsOf, type ChunkPoints } from "./merge";
import type { BuildReply, BuildRequest, OpenFleetSource, ReadJob } from "./protocol";
import { assembleParts, buildAllTree, buildIndexParts, buildTypeTrees, slugLookup } from "./trees";

declare const self: Worker;

const COLLECT_EVERY_ROWS = 16_384;

/**
 * Frees this worker's garbage now: called before a final reply, so the memory is back with the system by
 * the time the caller (which then ends the worker) turns ready, not some time after the thread exits.
 */
function collectNow(): void {
  Bun.gc(true);
}

function buffersOf(trees: TreeParts[]): ArrayBuffer[] {
  return [...new Set(trees.flatMap(treeBuffers))];
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

/** Reads, on one snapshot, blocks from the shared queue; `onStarted` runs once the snapshot is fixed. */
function readChunk(job: ReadJob, open: OpenFleetSource, onStarted: () => void): ColumnChunk {
  const { source, close } = open(job.source);
  try {
    return source.inOneSnapshot(() => {
      const builder = new ChunkBuilder(job.capacityHint);
      const queue = new Int32Array(job.queue);
      let sinceCollect = 0;
      for (let block = Atomics.add(queue, 0, 1); block < job.blockCount; block = Atomics.add(queue, 0, 1)) {
        builder.startBlock(block);
        const after = block === 0 ? undefined : job.firstRowid - 1 + block * job.blockRows;
        const upTo = block === job.blockCount - 1 ? undefined : job.firstRowid - 1 + (block + 1) * job.blockRows;
        for (const row of source.activeRows({ after, upTo })) {
          builder.add(row);
          // Every row leaves an object and a dozen strings behind: collecting often keeps the heap (and the
          // process's resident memory) small instead of letting garbage pile up between rare collections.
          if (++sinceCollect === COLLECT_EVERY_ROWS) {
            sinceCollect = 0;
            Bun.gc(false);
          }
        }
      }
      return builder.finish();
    }, onStarted);
  } finally {
    close();
  }
}

/** Serves build requests on this worker thread, opening the fleet source with `open`. */
export function serveIndexBuilds(open: OpenFleetSource): void {
  self.onmessage = (event: MessageEvent<BuildRequest>) => handle(event.data, open);
}

function handle(request: BuildRequest, open: OpenFleetSource): void {
  try {
    if ("read" in request) {
      const chunk = readChunk(request.read, open, () => reply({ id: request.id, started: true }));
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
      reply({ id: request.id, parts: packed, typeTrees }, [...transferablesOf(parts), packed.tables.ends.buffer as ArrayBuffer, ...buffersOf(typeTrees.trees)]);
    } else if ("allTree" in request) {
      const nodeSize = request.nodeSize ?? NODE_SIZE;
      const points = concatPoints(request.allTree);
      request.allTree = [];
      const tree = buildAllTree(points, nodeSize);
      if (request.typesLater) {
        reply({ id: request.id, partial: true, tree }, buffersOf([tree]));
        const here = new Set(request.types);
        const typeTrees = someTypeTrees(points, nodeSize, (name) => here.has(name));
        collectNow();
        reply({ id: request.id, typeTrees }, buffersOf(typeTrees.trees));
        return;
      }
      const here = new Set(request.types);
      const typeTrees = someTypeTrees(points, nodeSize, (name) => here.has(name));
      collectNow();
      reply({ id: request.id, tree, typeTrees }, buffersOf([tree, ...typeTrees.trees]));
    } else {
      let parts;
      let stamp: FleetStamp | undefined;
      if ("source" in request) {
        const { source, close } = open(request.source);
        try {
          // One snapshot: the whole fleet as of one moment.
          parts = source.inOneSnapshot(() => {
            stamp = source.stamp();
            return buildIndexParts(source.activeRows(), request.nodeSize);
          });
        } finally {
          close();
        }
      } else parts = buildIndexParts(request.rows, request.nodeSize);
      if ("rows" in request) request.rows = [];
      collectNow();
      replyParts(request.id, parts, stamp);
    }
  } catch (error) {
    reply({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
}
