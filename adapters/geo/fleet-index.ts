import type { FleetEntry } from "../../domain/fleet/entry";
import type { FleetSearchIndex, GeoSearch } from "../../domain/fleet/ports";
import { buildIndexParts, type IndexInput, type IndexParts } from "./index-parts";
import { FleetSnapshot, splitForIndex } from "./snapshot";

export interface FleetIndexOptions {
  /** Reads the active fleet (the repository). */
  load: () => Promise<FleetEntry[]>;
  /** Build the kd-tree in a Bun Worker (default true); false builds in-process. */
  useWorker?: boolean;
  /** The worker's code (tests point it elsewhere); defaults to index-builder.worker.ts. */
  workerUrl?: string;
  /** Told when the worker fails and builds move in-process (for the log). */
  onWorkerFailure?: (error: unknown) => void;
  /** Coalesces bursts of changes into one rebuild. */
  debounceMs?: number;
  /** Called when a rebuild fails; the previous snapshot keeps answering. */
  onError?: (error: unknown) => void;
}

const BUILD_TIMEOUT_MS = 60_000;

/**
 * The fleet search index on kdbush. Searches read the current snapshot and never wait; a change
 * schedules a rebuild (coalesced, one at a time) whose kd-tree is built in a worker and swapped in whole.
 */
export class KdFleetSearchIndex implements FleetSearchIndex {
  private snapshot: FleetSnapshot;
  /** Bumped by every change; `built` is the change count the current snapshot reflects. */
  private changes = 0;
  private built = 0;
  private building: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private worker: Worker | undefined;
  private workerBroken = false;
  private nextRequest = 1;
  private readonly pending = new Map<number, { resolve: (p: IndexParts) => void; reject: (e: Error) => void }>();
  private closed = false;

  constructor(private readonly options: FleetIndexOptions) {
    const empty = splitForIndex([]);
    this.snapshot = new FleetSnapshot(empty.located, buildIndexParts(empty.input), empty.unlocated);
  }

  search(query: GeoSearch) {
    return this.snapshot.search(query);
  }

  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }) {
    return this.snapshot.unlocated(airports, filter);
  }

  /** Number of located active entries in the current snapshot. */
  get size(): number {
    return this.snapshot.size;
  }

  fleetChanged(): void {
    this.changes++;
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.rebuild().catch((error) => this.options.onError?.(error));
    }, this.options.debounceMs ?? 20);
  }

  /** Rebuilds now (waiting for a running build first) and resolves once the new snapshot is live. */
  async rebuildNow(): Promise<void> {
    this.changes++;
    await this.whenFresh();
  }

  /** Resolves once every change made before the call is visible to search. */
  async whenFresh(): Promise<void> {
    const target = this.changes;
    // Bounded: each round either builds the target generation or fails.
    for (let round = 0; this.built < target && round < 5 && !this.closed; round++) await this.rebuild();
    if (this.built < target && !this.closed) throw new Error("fleet index did not catch up");
  }

  /** Stops the build worker; searches keep answering from the last snapshot. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.worker?.terminate();
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new Error("fleet index closed"));
    this.pending.clear();
  }

  /** Queues one build after any running one; it reads the fleet afresh and swaps the snapshot in whole. */
  private rebuild(): Promise<void> {
    const run = (this.building ?? Promise.resolve()).catch(() => {}).then(() => this.buildOnce());
    this.building = run;
    run
      .finally(() => {
        if (this.building === run) this.building = undefined;
      })
      .catch(() => {});
    return run;
  }

  private async buildOnce(): Promise<void> {
    if (this.closed || this.built >= this.changes) return;
    const generation = this.changes;
    const entries = await this.options.load();
    const { located, unlocated, input } = splitForIndex(entries);
    // The worker takes the coordinate buffers (transferred), so a fallback build needs a fresh copy.
    const parts = await this.buildParts(input, () => splitForIndex(entries).input);
    if (this.closed) return;
    this.snapshot = new FleetSnapshot(located, parts, unlocated);
    this.built = Math.max(this.built, generation);
  }

  private async buildParts(input: IndexInput, freshInput: () => IndexInput): Promise<IndexParts> {
    if (this.options.useWorker === false || this.workerBroken) return buildIndexParts(input);
    try {
      return await this.inWorker(input);
    } catch (error) {
      if (this.closed) throw error;
      // A worker that cannot start (or died) must not stop the service: build in-process from now on.
      this.options.onWorkerFailure?.(error);
      this.workerBroken = true;
      this.worker?.terminate();
      this.worker = undefined;
      return buildIndexParts(freshInput());
    }
  }

  private inWorker(input: IndexInput): Promise<IndexParts> {
    const worker = this.ensureWorker();
    const id = this.nextRequest++;
    return new Promise<IndexParts>((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error("fleet index build timed out"));
      }, BUILD_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (parts) => {
          clearTimeout(timeout);
          resolve(parts);
        },
        reject: (error) => {
          clearTimeout(timeout);
          reject(error);
        },
      });
      worker.postMessage({ id, input }, [input.lons.buffer, input.lats.buffer]);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.options.workerUrl ?? workerEntry());
    // The build worker must not keep a finished CLI command or test process alive.
    (worker as unknown as { unref(): void }).unref();
    worker.onmessage = (event: MessageEvent<{ id: number; parts?: IndexParts; error?: string }>) => {
      const waiting = this.pending.get(event.data.id);
      if (!waiting) return;
      this.pending.delete(event.data.id);
      if (event.data.parts) waiting.resolve(event.data.parts);
      else waiting.reject(new Error(event.data.error ?? "fleet index build failed"));
    };
    worker.onerror = (event) => {
      for (const p of this.pending.values()) p.reject(new Error(`fleet index worker failed: ${event.message}`));
      this.pending.clear();
    };
    this.worker = worker;
    return worker;
  }
}

/**
 * Where the build worker's code is. In the compiled binary every module is bundled into the entry file, so
 * import.meta.url no longer points here; the worker is a separate entrypoint addressed from the bundle root.
 */
function workerEntry(): string {
  return import.meta.url.includes("$bunfs") ? "./adapters/geo/index-builder.worker.ts" : new URL("./index-builder.worker.ts", import.meta.url).href;
}
