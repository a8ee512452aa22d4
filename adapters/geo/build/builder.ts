import type { FleetSource, FleetStamp } from "../../../domain/fleet/source";
import { workerEntry } from "../../runtime";
import { WorkerRpc } from "../../worker-rpc";
import { unpackTables, type IndexParts, type PackedTables, type TreeParts } from "../parts";
import { chunkTransferables, type ColumnChunk } from "./columns";
import { pointBuffers, type ChunkPoints } from "./merge";
import type { BuildJob, BuildReply, BuildStep } from "./protocol";
import { buildIndexParts } from "./trees";

/** The build worker's entry point in src/workers/ (its code: worker.ts, given the SQLite fleet source there). */
export const INDEX_BUILD_WORKER = "fleet-index-builder.worker.ts";

export interface BuilderOptions {
  source: FleetSource;
  /** Build in a Bun Worker (default true); false builds in-process. */
  useWorker?: boolean;
  /** The worker's code (tests point it elsewhere); defaults to INDEX_BUILD_WORKER. */
  workerUrl?: string;
  /** Told when the worker fails and builds move in-process (for the log). */
  onWorkerFailure?: (error: unknown) => void;
  /** kd-tree leaf size (tests use tiny leaves). */
  nodeSize?: number;
  /**
   * The first build of a fleet with at least this many rows (by storage position span) is shared by two
   * workers, each reading half (default 50,000); below it one worker does everything.
   */
  parallelMinRows?: number;
}

/**
 * A built index; with `typeTrees`, its per-type trees are still being built (parts.typeTrees is empty until
 * they arrive, in parts.typeNames order).
 */
export interface BuiltParts {
  parts: IndexParts;
  stamp?: FleetStamp;
  typeTrees?: Promise<TreeParts[]>;
}

const BUILD_TIMEOUT_MS = 60_000;

type BuildRpc = WorkerRpc<BuildJob | BuildStep, BuildReply>;

/**
 * Builds the index parts off the main thread: in one worker that reads the fleet source itself (or is sent
 * the rows of an in-memory source), or for a big first build in two (see sharedBuild). A worker that cannot
 * run moves every later build in-process.
 */
export class IndexBuilder {
  /** Build workers (two for a shared build), alive only while a build runs. */
  private workers: BuildRpc[] = [];
  private workerBroken = false;
  private closed = false;

  constructor(private readonly options: BuilderOptions) {}

  /** Builds the whole fleet; `first` when nothing is served yet (the only build that may use two workers). */
  async build(first: boolean): Promise<BuiltParts> {
    const { source, nodeSize } = this.options;
    // A source without a location (read here) gives its stamp with the rows, read in the same synchronous step.
    const stampHere = () => (source.location === undefined ? source.stamp() : undefined);
    const inProcess = () => {
      const stamp = stampHere();
      return { parts: buildIndexParts(source.activeRows(), nodeSize), stamp };
    };
    if (this.options.useWorker === false || this.workerBroken) return inProcess();
    try {
      const location = source.location;
      // Two workers only for the first build, when nothing is served yet. A later build (a compaction) runs
      // while searches are answered: on one worker it leaves a core to them (search p99 during changes).
      let built = location !== undefined && first ? await this.sharedBuild(location) : undefined;
      if (!built) {
        const stamp = stampHere();
        const request: BuildJob = location !== undefined ? { source: location, nodeSize } : { rows: [...source.activeRows()], nodeSize };
        const reply = await this.call(0, request);
        if (!reply.parts) throw new Error("fleet index build returned nothing");
        built = { parts: unpackTables(reply.parts), stamp: reply.stamp ?? stamp };
      }
      // A build leaves a big heap behind in the workers; ending them gives that memory back (builds are rare).
      // A worker still building type trees ends once they are in.
      if (built.typeTrees) await this.stopWorker(0);
      else await this.stopWorkers();
      return built;
    } catch (error) {
      if (this.closed) throw error;
      // A worker that cannot start (or died) must not stop the service: build in-process from now on.
      this.options.onWorkerFailure?.(error);
      this.workerBroken = true;
      void this.stopWorkers();
      return inProcess();
    }
  }

  /** Ends the workers; a build under way fails. */
  close(): void {
    this.closed = true;
    for (const rpc of this.workers) rpc?.rejectAll(new Error("fleet index closed"));
    void this.stopWorkers();
  }

  /**
   * A big fleet built by two workers: both read blocks of rows (by storage position) from a shared queue,
   * each on its own connection; then one merges the blocks into the columns and builds the per-type trees
   * and the slug table while the other builds the all-types tree. All blocks must be read from one snapshot:
   * a third reader's commit version, read before the reads start and again once both workers have fixed
   * their snapshot, proves no write committed in between (else the reads are retried).
   * Undefined when the fleet is small (or writes kept landing in between): one worker builds it instead.
   */
  private async sharedBuild(location: string): Promise<BuiltParts | undefined> {
    const { nodeSize } = this.options;
    const span = this.options.source.rowSpan();
    if (!span || span.last - span.first + 1 < (this.options.parallelMinRows ?? 50_000)) return undefined;
    const watch = this.options.source.watchCommits();
    if (!watch) return undefined;
    try {
      // ~64 blocks: small enough that the worker done first waits little for the other.
      const rows = span.last - span.first + 1;
      const blockRows = Math.max(256, Math.ceil(rows / 64));
      const blockCount = Math.ceil(rows / blockRows);
      for (let attempt = 0; attempt < 3 && !this.closed; attempt++) {
        const before = watch.version();
        // Read between the two versions: when they agree, this is the stamp of the workers' snapshot.
        const stamp = watch.stamp();
        let started = 0;
        let bothStarted!: () => void;
        const fixed = new Promise<void>((resolve) => (bothStarted = resolve));
        const onStarted = (reply: BuildReply) => {
          if (reply.started && ++started === 2) bothStarted();
        };
        const job = { source: location, queue: new SharedArrayBuffer(4), firstRowid: span.first, blockRows, blockCount, capacityHint: Math.ceil(rows / 2) };
        const reads = [this.call(0, { read: job }, [], onStarted), this.call(1, { read: job }, [], onStarted)];
        // A read that fails before it starts must not leave this waiting: the failure wins the race.
        await Promise.race([fixed, Promise.all(reads)]);
        const after = watch.version();
        const replies = await Promise.all(reads);
        const chunks = replies.map((r) => r.chunk);
        if (replies.some((r) => !r.chunk || !r.points)) throw new Error("fleet index read returned nothing");
        if (before !== after) continue;
        const shares = chunks as Array<PackedTables<ColumnChunk>>;
        const points = replies.map((r) => r.points as ChunkPoints);
        // One worker merges the columns and builds the slug table; the other builds the all-types tree, sends it,
        // then builds every per-type tree. The index serves once the columns and the all-types tree are in; the
        // type trees follow, and a `types` search checks types entry by entry until then.
        const allTypes = [...new Set(points.flatMap((p) => p.typeNames))];
        let treeArrived!: (tree: TreeParts) => void;
        const allTreeCall = this.call(1, { allTree: points, types: allTypes, nodeSize, typesLater: true }, points.flatMap(pointBuffers), (reply) => {
          if (reply.tree) treeArrived(reply.tree);
        });
        const allTree = new Promise<TreeParts>((resolve, reject) => {
          treeArrived = resolve;
          allTreeCall.catch(reject);
        });
        const [merged, tree] = await Promise.all([
          this.call(0, { merge: shares, notTypes: allTypes, nodeSize }, shares.flatMap((c) => [...chunkTransferables(c), c.tables.ends.buffer as ArrayBuffer])),
          allTree,
        ]);
        if (!merged.parts) throw new Error("fleet index build returned nothing");
        const parts = unpackTables(merged.parts);
        const typeTrees = allTreeCall
          .then((reply) => {
            if (!reply.typeTrees) throw new Error("fleet index build returned no type trees");
            const byName = new Map<string, TreeParts>();
            reply.typeTrees.names.forEach((name, i) => byName.set(name, reply.typeTrees!.trees[i]));
            const trees = parts.typeNames.map((name) => byName.get(name));
            if (trees.some((t) => !t)) throw new Error("fleet index build is missing a type tree");
            return trees as TreeParts[];
          })
          // The worker ends once they are in: its memory is freed.
          .finally(() => void this.stopWorker(1));
        // The caller handles a failure; this keeps one that comes before it looks from counting as unhandled.
        typeTrees.catch(() => {});
        return { parts: { ...parts, all: tree, typeTrees: [] }, stamp, typeTrees };
      }
      return undefined;
    } finally {
      watch.close();
    }
  }

  /** Sends a request to build worker `slot` (started on demand); resolves with its final reply. */
  private call(slot: number, request: BuildJob | BuildStep, transfer: ArrayBuffer[] = [], progress?: (reply: BuildReply) => void): Promise<BuildReply> {
    return this.worker(slot).call(request, { transfer, progress, timeoutMs: BUILD_TIMEOUT_MS, timeoutError: "fleet index build timed out" });
  }

  private worker(slot: number): BuildRpc {
    const existing = this.workers[slot];
    if (existing) return existing;
    const rpc: BuildRpc = new WorkerRpc(this.options.workerUrl ?? workerEntry(INDEX_BUILD_WORKER), {
      name: "fleet index worker",
      isProgress: (reply) => reply.started === true || reply.partial === true,
      errorOf: (reply) => (reply.error !== undefined ? reply.error || "fleet index build failed" : undefined),
    });
    this.workers[slot] = rpc;
    return rpc;
  }

  /**
   * Ends the build workers; resolves once their threads have exited (or after a bounded wait), which is
   * when the memory of their heaps goes back to the system: the first build's peak is not still held
   * when the service turns ready.
   */
  private stopWorkers(): Promise<void> {
    return Promise.all(this.workers.map((_, slot) => this.stopWorker(slot))).then(() => {});
  }

  stopWorker(slot: number): Promise<void> {
    const rpc = this.workers[slot];
    if (!rpc) return Promise.resolve();
    delete this.workers[slot];
    return rpc.stop();
  }
}
