import type { FleetChangeListener, FleetSearchIndex, GeoHit, GeoSearch, UnlocatedCount } from "../../domain/fleet/ports";
import { ChangeExtent } from "./change-extent";
import { buildIndexParts, chunkTransferables, NODE_SIZE, pointBuffers, unpackTables, type TreeParts, type ChunkPoints, type ColumnChunk, type IndexParts, type PackedTables, type IndexRow } from "./index-parts";
import { byDistanceThenSlug, type Exclusions, FleetSnapshot, prepare, toHits, UnlocatedIndex } from "./snapshot";
import { Database } from "bun:sqlite";
import type { BuildJob, BuildReply, BuildStep } from "./index-builder.worker";
import { loadIndexFile, saveIndexFile, type FleetStamp } from "./index-file";
import { readFleetStamp } from "../sqlite/fleet-repository";
import { workerEntry } from "../runtime";

export interface FleetIndexOptions {
  /** Reads the whole active fleet in-process (an in-memory database, or when the worker cannot run). */
  load: () => Promise<Iterable<IndexRow>>;
  /**
   * Reads the current active rows among `slugs` (synchronously, so a view is composed in one step).
   * Without it every change waits for a full rebuild.
   */
  loadSlugs?: (slugs: string[]) => IndexRow[];
  /** The SQLite file: the build worker then reads the fleet itself on a read-only connection. */
  dbPath?: string;
  /** Build the kd-tree in a Bun Worker (default true); false builds in-process. */
  useWorker?: boolean;
  /** The worker's code (tests point it elsewhere); defaults to index-builder.worker.ts. */
  workerUrl?: string;
  /** Told when the worker fails and builds move in-process (for the log). */
  onWorkerFailure?: (error: unknown) => void;
  /** Coalesces bursts of changes without slugs into one full rebuild. */
  debounceMs?: number;
  /** Coalesces bursts of changes to known slugs into one overlay refresh. */
  overlayDelayMs?: number;
  /** Recent changes are folded into a new full build after this long (ms) … */
  compactAfterMs?: number;
  /** … or once this many entries have changed since the last full build. */
  compactAfterChanges?: number;
  /** Called when a rebuild fails; the previous snapshot keeps answering. */
  onError?: (error: unknown) => void;
  /** kd-tree leaf size (tests use tiny leaves). */
  nodeSize?: number;
  /**
   * The first build of a fleet file with at least this many rows (by rowid span) is shared by two workers, each reading half
   * (default 50,000); below it one worker does everything. Tests set 0 to exercise the shared build.
   */
  parallelMinRows?: number;
  /**
   * Where the built index is saved (beside the database file). The first build loads it instead when its
   * stamp equals `readStamp()`; full builds read from the file save it again (after `saveDelayMs`, at most
   * once per `saveEveryMs`). Unset: nothing is saved or loaded.
   */
  indexFile?: string;
  /** The database's current fleet stamp (needed with indexFile). */
  readStamp?: () => FleetStamp | undefined;
  /**
   * The slugs changed since a saved index's stamp, when the database's change log covers every change since
   * and there are at most `maxSlugs`; undefined otherwise. With it, the first build loads a saved index that
   * is behind and re-reads just those entries (they are served from the overlay until the next compaction).
   */
  changesSince?: (saved: FleetStamp, maxSlugs: number) => string[] | undefined;
  /** Told once the index of `stamp` is saved (the database's change log then starts there). */
  onSaved?: (stamp: FleetStamp) => void;
  saveDelayMs?: number;
  saveEveryMs?: number;
}

/**
 * A built index; with `typeTrees`, its per-type trees are still being built (parts.typeTrees is empty until
 * they arrive, in parts.typeNames order).
 */
interface BuiltParts {
  parts: IndexParts;
  stamp?: FleetStamp;
  typeTrees?: Promise<TreeParts[]>;
}

const BUILD_TIMEOUT_MS = 60_000;
/** How long a build waits for its ended workers' threads to exit (they normally take well under 100 ms). */
const WORKER_EXIT_WAIT_MS = 1_000;

/**
 * What searches read: a full build (the base) with the entries changed since then left out and
 * answered from a small overlay snapshot of their current rows. Immutable; replaced whole.
 */
class FleetView {
  readonly size: number;

  constructor(
    readonly base: FleetSnapshot,
    private readonly excluded: Exclusions,
    private readonly overlay: FleetSnapshot | undefined,
    private readonly withoutPosition: UnlocatedIndex,
  ) {
    this.size = base.size - excluded.size + (overlay?.size ?? 0);
  }

  search(query: GeoSearch): { total: number; hits: GeoHit[] } {
    const q = prepare(query);
    const excluded = this.excluded.size > 0 ? this.excluded : undefined;
    const total = this.base.count(q, excluded) + (this.overlay ? this.overlay.count(q) : 0);
    const k = query.offset + query.limit;
    if (total === 0 || query.limit === 0 || query.offset >= total) return { total, hits: [] };
    let found = this.base.nearest(q, k, excluded);
    if (this.overlay) {
      const recent = this.overlay.nearest(q, k);
      if (recent.length > 0) found = found.concat(recent).sort(byDistanceThenSlug);
    }
    return { total, hits: toHits(found.slice(query.offset, k)) };
  }

  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }): UnlocatedCount[] {
    return this.withoutPosition.unlocated(airports, filter);
  }
}

/**
 * The fleet search index on kdbush. Searches read the current view and never wait. A change to known
 * slugs is visible after a quick overlay refresh (its rows re-read, a tiny snapshot built); a full
 * rebuild (coalesced, one at a time, in a worker that reads SQLite itself) folds the overlay back in.
 */
export class KdFleetSearchIndex implements FleetSearchIndex {
  private view: FleetView;
  private baseUnlocated: { index: UnlocatedIndex; slugs: Set<string> };
  /** Bumped by every change; the base reflects every change up to `baseSeq`, the view every slug change up to `viewSeq`. */
  private seq = 0;
  private fullWanted = 0;
  private baseSeq = 0;
  private viewSeq = 0;
  /** Slugs changed since the base was read, with the change count of their latest change. */
  private readonly dirty = new Map<string, number>();
  /** The current rows of dirty slugs as last read (null: gone or inactive), and the slugs changed since. */
  private readonly overlayRows = new Map<string, IndexRow | null>();
  private readonly stale = new Set<string>();
  private building: Promise<void> | undefined;
  private buildTimer: ReturnType<typeof setTimeout> | undefined;
  private overlayTimer: ReturnType<typeof setTimeout> | undefined;
  private compactTimer: ReturnType<typeof setTimeout> | undefined;
  /** Build workers (two for a shared build), alive only while a build runs. */
  private workers: Worker[] = [];
  private workerBroken = false;
  private nextRequest = 1;
  private readonly pending = new Map<number, { resolve: (reply: BuildReply) => void; reject: (e: Error) => void; progress?: (reply: BuildReply) => void }>();
  private closed = false;
  /** Where the current base came from: a saved file, or a build. */
  private baseSource: "file" | "build" | undefined;
  /** The newest base built from the database file, with its stamp (what a save writes). */
  private latestBuilt: { parts: IndexParts; stamp: FleetStamp } | undefined;
  private loadedChanges = 0;
  /** Builds swapped in so far (a late part of an older build must not be saved over a newer one). */
  private builds = 0;
  /** Settles once the newest build's type trees are in (or failed): what saveNow waits for. */
  private typeTreesDue: Promise<void> | undefined;
  private savedStamp: FleetStamp | undefined;
  private lastSaveAt = -Infinity;
  private viewAtMs = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> | undefined;
  private viewGeneration = 0;
  private readonly listeners = new Set<FleetChangeListener>();

  constructor(private readonly options: FleetIndexOptions) {
    const empty = new FleetSnapshot(buildIndexParts([]));
    this.baseUnlocated = { index: new UnlocatedIndex([]), slugs: new Set() };
    this.view = new FleetView(empty, empty.exclusions(new Set()), undefined, this.baseUnlocated.index);
  }

  search(query: GeoSearch) {
    return this.view.search(query);
  }

  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }) {
    return this.view.unlocated(airports, filter);
  }

  get generation(): number {
    return this.viewGeneration;
  }

  onChange(listener: FleetChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether the current base was loaded from the saved index file or built (undefined before the first). */
  get source(): "file" | "build" | undefined {
    return this.baseSource;
  }

  /** Entries changed since the saved index that the first build loaded (re-read into the overlay); 0 otherwise. */
  get changedSinceSaved(): number {
    return this.loadedChanges;
  }

  /**
   * Saves the newest built base now if it is not saved yet (a save due later is brought forward) and
   * resolves once no save is in progress: for an orderly shutdown, so the next start can load it.
   */
  async saveNow(): Promise<void> {
    // A build whose type trees are still coming is saved once they are in (bounded by the build timeout).
    await this.typeTreesDue;
    await this.saving;
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    this.startSave();
    await this.saving;
  }

  /** When the view answering searches was swapped in (Unix ms; 0 before the first build). */
  get viewBuiltAtMs(): number {
    return this.viewAtMs;
  }

  /** Number of located active entries in the current view. */
  get size(): number {
    return this.view.size;
  }

  fleetChanged(slugs?: readonly string[]): void {
    this.seq++;
    if (this.closed) return;
    const compactAfter = this.options.compactAfterChanges ?? 5000;
    if (!slugs || !this.options.loadSlugs || this.dirty.size + slugs.length > compactAfter) {
      if (slugs)
        for (const slug of slugs) {
          this.dirty.set(slug, this.seq);
          this.stale.add(slug);
        }
      this.fullWanted = this.seq;
      this.scheduleBuild(this.options.debounceMs ?? 20);
      if (slugs) this.scheduleOverlay();
      return;
    }
    for (const slug of slugs) {
      this.dirty.set(slug, this.seq);
      this.stale.add(slug);
    }
    this.scheduleOverlay();
    if (!this.compactTimer)
      this.compactTimer = setTimeout(() => {
        this.compactTimer = undefined;
        this.fullWanted = this.seq;
        this.scheduleBuild(0);
      }, this.options.compactAfterMs ?? 30_000);
  }

  /** Rebuilds now (waiting for a running build first) and resolves once the new snapshot is live. */
  async rebuildNow(): Promise<void> {
    this.fullWanted = ++this.seq;
    await this.whenFresh();
  }

  /** Resolves once every change made before the call is visible to search. */
  async whenFresh(): Promise<void> {
    const target = this.seq;
    const fullTarget = this.fullWanted;
    // Bounded: each round either builds the target generation or fails.
    for (let round = 0; this.baseSeq < fullTarget && round < 5 && !this.closed; round++) await this.rebuild();
    if (this.baseSeq < fullTarget && !this.closed) throw new Error("fleet index did not catch up");
    if (this.viewSeq < target && !this.closed) this.refreshOverlay();
  }

  /** Stops the build worker; searches keep answering from the last view. */
  close(): void {
    this.closed = true;
    for (const timer of [this.buildTimer, this.overlayTimer, this.compactTimer, this.saveTimer]) if (timer) clearTimeout(timer);
    void this.stopWorkers();
    for (const p of this.pending.values()) p.reject(new Error("fleet index closed"));
    this.pending.clear();
  }

  private scheduleBuild(delayMs: number): void {
    if (this.buildTimer) return;
    this.buildTimer = setTimeout(() => {
      this.buildTimer = undefined;
      void this.rebuild().catch((error) => this.options.onError?.(error));
    }, delayMs);
  }

  private scheduleOverlay(): void {
    if (this.overlayTimer) return;
    this.overlayTimer = setTimeout(() => {
      this.overlayTimer = undefined;
      try {
        this.refreshOverlay();
      } catch (error) {
        this.options.onError?.(error);
      }
    }, this.options.overlayDelayMs ?? 50);
  }

  /** Re-reads the changed entries and composes a new view over the current base. */
  private refreshOverlay(): void {
    if (this.closed) return;
    if (this.overlayTimer) {
      clearTimeout(this.overlayTimer);
      this.overlayTimer = undefined;
    }
    this.compose(this.view.base);
  }

  /**
   * The view of `base` plus the current rows of every slug changed since it was read. Synchronous, so
   * the rows read and the view swapped in belong to the same moment.
   */
  private compose(base: FleetSnapshot): void {
    const seq = this.seq;
    // Only slugs changed since the last read are read again; the others' rows are still current.
    for (const slug of this.overlayRows.keys()) if (!this.dirty.has(slug)) this.overlayRows.delete(slug);
    const stale = [...this.stale].filter((slug) => this.dirty.has(slug));
    this.stale.clear();
    const extent = base === this.view.base ? new ChangeExtent(base) : undefined;
    extent?.add(stale, this.overlayRows);
    if (stale.length > 0 && this.options.loadSlugs) {
      for (const slug of stale) this.overlayRows.set(slug, null);
      for (const row of this.options.loadSlugs(stale)) this.overlayRows.set(row.slug, row);
    }
    const slugs = [...this.dirty.keys()];
    const rows: IndexRow[] = [];
    for (const row of this.overlayRows.values()) if (row) rows.push(row);
    const excluded = new Set<number>();
    for (const slug of slugs) {
      const id = base.idOf(slug);
      if (id >= 0) excluded.add(id);
    }
    const overlay = rows.length > 0 ? new FleetSnapshot(buildIndexParts(rows, this.options.nodeSize ?? NODE_SIZE)) : undefined;
    let unlocated = this.baseUnlocated.index;
    const touched = slugs.some((s) => this.baseUnlocated.slugs.has(s));
    if (touched || (overlay && overlay.unlocatedEntries.length > 0)) {
      const changed = new Set(slugs);
      unlocated = new UnlocatedIndex([...base.unlocatedEntries.filter((e) => !changed.has(e.slug)), ...(overlay?.unlocatedEntries ?? [])]);
    }
    extent?.add(stale, this.overlayRows);
    this.view = new FleetView(base, base.exclusions(excluded), overlay, unlocated);
    this.viewGeneration++;
    for (const listener of this.listeners) listener(this.viewGeneration, extent?.change);
    this.viewSeq = seq;
    this.viewAtMs = Date.now();
  }

  /** Queues one build after any running one; it reads the fleet afresh and swaps the view in whole. */
  private rebuild(): Promise<void> {
    // With nothing running the build starts in this call (its workers are already loading when it
    // returns: start-up sets up the HTTP apps meanwhile); otherwise it queues behind the running one.
    const run = this.building ? this.building.catch(() => {}).then(() => this.buildOnce()) : this.buildOnce();
    this.building = run;
    run
      .finally(() => {
        if (this.building === run) this.building = undefined;
      })
      .catch(() => {});
    return run;
  }

  private async buildOnce(): Promise<void> {
    if (this.closed || this.baseSeq >= this.fullWanted) return;
    const generation = this.seq;
    if (this.compactTimer) {
      clearTimeout(this.compactTimer);
      this.compactTimer = undefined;
    }
    const loaded = this.baseSource === undefined ? await this.loadSaved() : undefined;
    const { parts, stamp, typeTrees }: BuiltParts = loaded ? { parts: loaded.parts } : await this.buildParts();
    if (this.closed) return;
    this.baseSource = loaded ? "file" : "build";
    const base = new FleetSnapshot(parts);
    const build = ++this.builds;
    // Saved once complete: with its type trees.
    const saveWhenComplete = () => {
      if (!stamp || !this.options.indexFile || build !== this.builds) return;
      this.latestBuilt = { parts, stamp };
      this.scheduleSave();
    };
    if (typeTrees)
      this.typeTreesDue = typeTrees.then(
        (trees) => {
          if (this.closed) return;
          base.attachTypeTrees(trees);
          saveWhenComplete();
        },
        // The snapshot keeps answering without them (checking types entry by entry); a full build (on one
        // worker) brings them.
        (error) => {
          if (this.closed) return;
          this.options.onError?.(error);
          this.fullWanted = ++this.seq;
          this.scheduleBuild(this.options.debounceMs ?? 20);
        },
      );
    else saveWhenComplete();
    // Changes up to `generation` were committed before the build read the fleet: the base has them.
    for (const [slug, seq] of this.dirty) if (seq <= generation) this.dirty.delete(slug);
    if (loaded && loaded.changed.length > 0) {
      // Entries changed after the saved index was written: left out of it and read afresh into the overlay,
      // as changes made while running are, until the compaction scheduled below builds from the database.
      const seq = ++this.seq;
      for (const slug of loaded.changed) {
        this.dirty.set(slug, seq);
        this.stale.add(slug);
      }
      this.loadedChanges = loaded.changed.length;
    }
    this.baseUnlocated = { index: new UnlocatedIndex(base.unlocatedEntries), slugs: new Set(base.unlocatedEntries.map((e) => e.slug)) };
    this.compose(base);
    this.baseSeq = Math.max(this.baseSeq, generation);
    if (this.dirty.size > 0 && !this.compactTimer)
      this.compactTimer = setTimeout(() => {
        this.compactTimer = undefined;
        this.fullWanted = this.seq;
        this.scheduleBuild(0);
      }, this.options.compactAfterMs ?? 30_000);
  }

  /**
   * The saved index, when there is one of exactly the database's current fleet, or of an earlier state the
   * database's change log leads on from (with the slugs changed since, at most compactAfterChanges of them).
   */
  private async loadSaved(): Promise<{ parts: IndexParts; changed: string[] } | undefined> {
    const file = this.options.indexFile;
    const current = file ? this.options.readStamp?.() : undefined;
    if (!file || !current) return undefined;
    try {
      let changed: string[] = [];
      let stamp: FleetStamp | undefined;
      const parts = await loadIndexFile(file, (saved) => {
        if (saved.n !== current.n || saved.token !== current.token) {
          // The changed entries are re-read through loadSlugs: without it a behind index cannot be brought up to date.
          if (!this.options.loadSlugs) return false;
          const slugs = this.options.changesSince?.(saved, this.options.compactAfterChanges ?? 5000);
          if (!slugs) return false;
          changed = slugs;
        }
        stamp = saved;
        return true;
      });
      if (!parts) return undefined;
      this.savedStamp = stamp;
      return { parts, changed };
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
  }

  /** Saves the newest base built from the database, unless that stamp is saved already or a save is due later. */
  private scheduleSave(): void {
    const file = this.options.indexFile;
    if (!file || this.saveTimer || this.saving || this.closed) return;
    const wait = Math.max(this.options.saveDelayMs ?? 1_000, this.lastSaveAt + (this.options.saveEveryMs ?? 60_000) - Date.now());
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.startSave();
    }, wait);
    (this.saveTimer as unknown as { unref?: () => void }).unref?.();
  }

  private startSave(): void {
    const file = this.options.indexFile;
    const latest = this.latestBuilt;
    if (!file || !latest || this.saving || this.closed || (this.savedStamp?.n === latest.stamp.n && this.savedStamp.token === latest.stamp.token)) return;
    this.lastSaveAt = Date.now();
    this.saving = saveIndexFile(file, latest.parts, latest.stamp)
      .then(() => {
        this.savedStamp = latest.stamp;
        this.options.onSaved?.(latest.stamp);
      })
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.saving = undefined;
        // A build that ended during the save: its stamp is saved in turn.
        if (this.latestBuilt !== latest) this.scheduleSave();
      });
  }

  private async buildParts(): Promise<BuiltParts> {
    const nodeSize = this.options.nodeSize;
    const inProcess = async () => ({ parts: buildIndexParts(await this.options.load(), nodeSize) });
    if (this.options.useWorker === false || this.workerBroken) return inProcess();
    try {
      const path = this.options.dbPath;
      const onFile = path !== undefined && path !== ":memory:";
      // Two workers only for the first build, when nothing is served yet. A later build (a compaction) runs
      // while searches are answered: on one worker it leaves a core to them (search p99 during changes).
      let built = onFile && this.baseSeq === 0 ? await this.sharedBuild(path, nodeSize) : undefined;
      if (!built) {
        const request: BuildJob = onFile ? { dbPath: path, nodeSize } : { rows: [...(await this.options.load())], nodeSize };
        const reply = await this.call(0, request);
        if (!reply.parts) throw new Error("fleet index build returned nothing");
        built = { parts: unpackTables(reply.parts), stamp: reply.stamp };
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

  /**
   * A big fleet built by two workers: both read blocks of rows (by rowid) from a shared queue, each on its
   * own read-only connection; then one merges the blocks into the columns and builds the per-type trees and
   * the slug table while the other builds the all-types tree. All blocks must be read from one snapshot: a
   * third connection's data_version, read before the reads start and again once both workers have fixed
   * their snapshot, proves no write committed in between (else the reads are retried).
   * Undefined when the fleet is small (or writes kept landing in between): one worker builds it instead.
   */
  private async sharedBuild(path: string, nodeSize: number | undefined): Promise<BuiltParts | undefined> {
    const probe = new Database(path, { readonly: true });
    try {
      const span = probe.query<{ lo: number | null; hi: number | null }, []>("SELECT min(rowid) AS lo, max(rowid) AS hi FROM fleet_entries").get();
      if (!span || span.lo === null || span.hi === null || span.hi - span.lo + 1 < (this.options.parallelMinRows ?? 50_000)) return undefined;
      // ~64 blocks: small enough that the worker done first waits little for the other.
      const rows = span.hi - span.lo + 1;
      const blockRows = Math.max(256, Math.ceil(rows / 64));
      const blockCount = Math.ceil(rows / blockRows);
      const dataVersion = () => probe.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version;
      for (let attempt = 0; attempt < 3 && !this.closed; attempt++) {
        const before = dataVersion();
        // Read between the two data_version reads: when they agree, this is the stamp of the workers' snapshot.
        const stamp = readFleetStamp(probe);
        let started = 0;
        let bothStarted!: () => void;
        const fixed = new Promise<void>((resolve) => (bothStarted = resolve));
        const onStarted = (reply: BuildReply) => {
          if (reply.started && ++started === 2) bothStarted();
        };
        const job = { dbPath: path, queue: new SharedArrayBuffer(4), firstRowid: span.lo, blockRows, blockCount, capacityHint: Math.ceil(rows / 2) };
        const reads = [this.call(0, { read: job }, [], onStarted), this.call(1, { read: job }, [], onStarted)];
        // A read that fails before it starts must not leave this waiting: the failure wins the race.
        await Promise.race([fixed, Promise.all(reads)]);
        const after = dataVersion();
        const replies = await Promise.all(reads);
        const chunks = replies.map((r) => r.chunk);
        if (replies.some((r) => !r.chunk || !r.points)) throw new Error("fleet index read returned nothing");
        if (before !== after) continue;
        const shares = chunks as Array<PackedTables<ColumnChunk>>;
        const points = replies.map((r) => r.points as ChunkPoints);
        // One worker merges the columns and builds the slug table; the other builds the all-types tree, sends it,
        // then builds every per-type tree. The index serves once the columns and the all-types tree are in; the
        // type trees follow (~0.4 s at 1M), and a `types` search checks types entry by entry until then.
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
        // buildOnce handles a failure; this keeps one that comes before it looks from counting as unhandled.
        typeTrees.catch(() => {});
        return { parts: { ...parts, all: tree, typeTrees: [] }, stamp, typeTrees };
      }
      return undefined;
    } finally {
      probe.close();
    }
  }

  /** Sends a request to build worker `slot` (started on demand); resolves with its final reply. */
  private call(slot: number, request: BuildJob | BuildStep, transfer: ArrayBuffer[] = [], progress?: (reply: BuildReply) => void): Promise<BuildReply> {
    const worker = this.ensureWorker(slot);
    const id = this.nextRequest++;
    return new Promise<BuildReply>((resolve, reject) => {
      const timeout = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error("fleet index build timed out"));
      }, BUILD_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (reply) => {
          clearTimeout(timeout);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timeout);
          reject(error);
        },
        progress,
      });
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  private ensureWorker(slot: number): Worker {
    const existing = this.workers[slot];
    if (existing) return existing;
    const worker = new Worker(this.options.workerUrl ?? workerEntry("adapters/geo/index-builder.worker.ts"));
    // The build worker must not keep a finished CLI command or test process alive.
    (worker as unknown as { unref(): void }).unref();
    worker.onmessage = (event: MessageEvent<BuildReply>) => {
      const reply = event.data;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      if (reply.started || reply.partial) {
        waiting.progress?.(reply);
        return;
      }
      this.pending.delete(reply.id);
      if (reply.error !== undefined) waiting.reject(new Error(reply.error || "fleet index build failed"));
      else waiting.resolve(reply);
    };
    worker.onerror = (event) => {
      for (const p of this.pending.values()) p.reject(new Error(`fleet index worker failed: ${event.message}`));
      this.pending.clear();
    };
    this.workers[slot] = worker;
    return worker;
  }

  /**
   * Ends the build workers; resolves once their threads have exited (or after a bounded wait), which is
   * when the memory of their heaps goes back to the system: the first build's peak is not still held
   * when the service turns ready.
   */
  private stopWorkers(): Promise<void> {
    return Promise.all(this.workers.map((_, slot) => this.stopWorker(slot))).then(() => {});
  }

  private stopWorker(slot: number): Promise<void> {
    const worker = this.workers[slot];
    if (!worker) return Promise.resolve();
    delete this.workers[slot];
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WORKER_EXIT_WAIT_MS);
      worker.addEventListener("close", () => {
        clearTimeout(timer);
        resolve();
      });
      worker.terminate();
    });
  }
}
