import type { FleetSource, FleetStamp } from "../../../domain/fleet/source";
import type { IndexParts, IndexRow, PackedTables, TreeParts } from "../parts";
import type { ColumnChunk } from "./columns";
import type { ChunkPoints } from "./merge";

// The messages between the fleet index (builder.ts) and its build workers (worker.ts).

/** What to build from: the fleet source at a location (read by the worker), or rows read by the caller. */
export type BuildJob = { source: string; nodeSize?: number } | { rows: IndexRow[]; nodeSize?: number };

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
  /** Where the worker opens the fleet source (FleetSource.location). */
  source: string;
  queue: SharedArrayBuffer;
  firstRowid: number;
  blockRows: number;
  blockCount: number;
  capacityHint?: number;
}

export type BuildRequest = (BuildJob | BuildStep) & { id: number };

/** What a worker opens a fleet source with, given its location (and closes once read). */
export type OpenFleetSource = (location: string) => { source: FleetSource; close(): void };

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
  /** With `parts` read from the fleet source: the fleet stamp of the snapshot they were read from. */
  stamp?: FleetStamp;
  error?: string;
}

