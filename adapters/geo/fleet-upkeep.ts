import type { FleetChange } from "../../domain/fleet/ports";
import type { FleetSource, IndexRow } from "../../domain/fleet/source";
import { IndexBuilder, type BuilderOptions, type BuiltParts } from "./build/builder";
import { buildIndexParts } from "./build/trees";
import { NODE_SIZE } from "./parts";
import { IndexSaver } from "./saved/saver";
import { ChangeExtent } from "./search/change-extent";
import { FleetSnapshot } from "./search/snapshot";
import { UnlocatedIndex } from "./search/unlocated";
import { FleetView } from "./search/view";

export interface FleetIndexOptions extends BuilderOptions {
  /** Where the active fleet is read from (in build workers too, when it has a location). */
  source: FleetSource;
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
  /**
   * Where the built index is saved (beside the database file). The first build loads it instead when its
   * stamp equals the source's, or is one the source's change log leads on from (the entries changed since
   * are then re-read and served from the overlay until the next compaction); full builds read from the
   * source save it again (after `saveDelayMs`, at most once per `saveEveryMs`). Unset: nothing is saved or loaded.
   */
  indexFile?: string;
  saveDelayMs?: number;
  saveEveryMs?: number;
}

/** Where the views this upkeep composes answer searches (the index's query side). */
export interface ViewSlot {
  /** The base the view answering now was composed over. */
  currentBase(): FleetSnapshot;
  /** Starts `view` answering; `change` is where its entries moved (undefined: a new base, anything may have). */
  swap(view: FleetView, change: FleetChange | undefined): void;
}

/**
 * Keeps the searchable view current: a full rebuild (coalesced, one at a time, in a worker that reads the fleet
 * source itself, or loaded from the saved index file) gives a new base; a change to known slugs re-reads their
 * rows into a small overlay snapshot composed over the base; a compaction folds the overlay back into a new base.
 * Every composed view goes to the slot's `swap`, from `compose` only.
 */
export class FleetIndexUpkeep {
  private baseUnlocated: { index: UnlocatedIndex; slugs: Set<string> };
  /** Bumped by every change; the base reflects every change up to `baseSeq`, the view every slug change up to `viewSeq`. */
  private seq = 0;
  private fullWanted = 0;
  private baseSeq = 0;
  private viewSeq = 0;
  /**
   * A mirroring source holds every change marked up to this (a refresh that began after the mark has ended); a
   * change marked while a refresh ran may have been committed after that refresh read the store.
   */
  private mirroredSeq = 0;
  /** Slugs changed since the base was read, with the change count of their latest change. */
  private readonly dirty = new Map<string, number>();
  /** The current rows of dirty slugs as last read (null: gone or inactive), and the slugs changed since. */
  private readonly overlayRows = new Map<string, IndexRow | null>();
  private readonly stale = new Set<string>();
  private building: Promise<void> | undefined;
  private buildTimer: ReturnType<typeof setTimeout> | undefined;
  private overlayTimer: ReturnType<typeof setTimeout> | undefined;
  private compactTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly builder: IndexBuilder;
  private readonly saver: IndexSaver | undefined;
  private closed = false;
  /** Where the current base came from: a saved file, or a build. */
  private baseSource: "file" | "build" | undefined;
  private loadedChanges = 0;
  /** Builds swapped in so far (a late part of an older build must not be saved over a newer one). */
  private builds = 0;
  /** Settles once the newest build's type trees are in (or failed): what saveNow waits for. */
  private typeTreesDue: Promise<void> | undefined;

  constructor(
    private readonly options: FleetIndexOptions,
    private readonly slot: ViewSlot,
  ) {
    this.baseUnlocated = { index: new UnlocatedIndex([]), slugs: new Set() };
    this.builder = new IndexBuilder(options);
    this.saver = options.indexFile
      ? new IndexSaver({
          file: options.indexFile,
          source: options.source,
          maxChanges: options.compactAfterChanges ?? 5000,
          saveDelayMs: options.saveDelayMs,
          saveEveryMs: options.saveEveryMs,
          onError: options.onError,
        })
      : undefined;
  }

  /** Whether the current base was loaded from the saved index file or built (undefined before the first). */
  get source(): "file" | "build" | undefined {
    return this.baseSource;
  }

  /** Entries changed since the saved index that the first build loaded (re-read into the overlay); 0 otherwise. */
  get changedSinceSaved(): number {
    return this.loadedChanges;
  }

  /** Settles once the current base's per-type trees are in (searches with `types` check entries one by one until then). */
  async typeTreesReady(): Promise<void> {
    await this.typeTreesDue;
  }

  /**
   * Saves the newest built base now if it is not saved yet (a save due later is brought forward) and
   * resolves once no save is in progress: for an orderly shutdown, so the next start can load it.
   */
  async saveNow(): Promise<void> {
    // A build whose type trees are still coming is saved once they are in (bounded by the build timeout).
    await this.typeTreesDue;
    await this.saver?.saveNow();
  }

  /** The fleet changed: these slugs (an overlay refresh, then a compaction), or anything (a full rebuild). */
  fleetChanged(slugs?: readonly string[]): void {
    this.seq++;
    if (this.closed) return;
    const compactAfter = this.options.compactAfterChanges ?? 5000;
    if (!slugs || !this.options.source.activeRowsBySlug || this.dirty.size + slugs.length > compactAfter) {
      if (slugs) this.markChanged(slugs, this.seq);
      this.fullWanted = this.seq;
      this.scheduleBuild(this.options.debounceMs ?? 20);
      if (slugs) this.scheduleOverlay();
      return;
    }
    this.markChanged(slugs, this.seq);
    this.scheduleOverlay();
    this.scheduleCompaction();
  }

  /** Rebuilds now (waiting for a running build first) and resolves once the new snapshot is live. */
  async rebuildNow(): Promise<void> {
    this.fullWanted = ++this.seq;
    await this.whenFresh();
  }

  /** Resolves once every change told (`fleetChanged`) before the call is visible to search. */
  async whenFresh(): Promise<void> {
    const target = this.seq;
    let fullTarget = this.fullWanted;
    // Bounded: each round either builds the target generation, refreshes the overlay, or fails.
    for (let round = 0; round < 7 && !this.closed; round++) {
      if (this.baseSeq < fullTarget) await this.rebuild();
      else if (this.viewSeq < target) {
        await this.refreshOverlay();
        // A mirroring source that had to read everything again asked for a full build: this change waits for it.
        if (this.options.source.refresh) fullTarget = this.fullWanted;
      } else return;
    }
    if (!this.closed && (this.baseSeq < fullTarget || this.viewSeq < target)) throw new Error("fleet index did not catch up");
  }

  /** Stops the build worker and the timers; the slot keeps its last view. */
  close(): void {
    this.closed = true;
    for (const timer of [this.buildTimer, this.overlayTimer, this.compactTimer]) if (timer) clearTimeout(timer);
    this.saver?.close();
    this.builder.close();
  }

  /** Slugs changed at `seq`: their rows are re-read into the overlay by the next compose. */
  private markChanged(slugs: readonly string[], seq: number): void {
    for (const slug of slugs) {
      this.dirty.set(slug, seq);
      this.stale.add(slug);
    }
  }

  /** A full rebuild after compactAfterMs, folding the overlay's changes into a new base (unless one is due already). */
  private scheduleCompaction(): void {
    if (!this.compactTimer)
      this.compactTimer = setTimeout(() => {
        this.compactTimer = undefined;
        this.fullWanted = this.seq;
        this.scheduleBuild(0);
      }, this.options.compactAfterMs ?? 30_000);
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
      this.refreshOverlay().catch((error) => this.options.onError?.(error));
    }, this.options.overlayDelayMs ?? 50);
  }

  /**
   * Re-reads the changed entries and composes a new view over the current base. Synchronous unless the source
   * mirrors another store: that one is brought up to date first.
   */
  private async refreshOverlay(): Promise<void> {
    if (this.closed) return;
    if (this.options.source.refresh) await this.catchUpSource();
    if (this.closed) return;
    if (this.overlayTimer) {
      clearTimeout(this.overlayTimer);
      this.overlayTimer = undefined;
    }
    this.compose(this.slot.currentBase());
  }

  /**
   * Brings a mirroring source up to date before its rows are read, so a change this instance just committed is
   * read fresh. Whatever it found changed is a change here too (another instance's, not yet told by the feed).
   */
  private async catchUpSource(): Promise<void> {
    const before = this.seq;
    const slugs = await this.options.source.refresh?.();
    if (this.closed) return;
    // Marked by others while it read (a request's own change, the feed): perhaps committed after its read.
    const markedMeanwhile = this.seq > before;
    if (slugs === undefined || slugs.length > 0) this.fleetChanged(slugs);
    this.mirroredSeq = Math.max(this.mirroredSeq, markedMeanwhile ? before : this.seq);
  }

  /** Every change marked up to this is in the source's rows: all of them for a source read directly. */
  private readable(): number {
    return this.options.source.refresh ? Math.min(this.seq, this.mirroredSeq) : this.seq;
  }

  /**
   * The view of `base` plus the current rows of every slug changed since it was read. Synchronous, so
   * the rows read and the view swapped in belong to the same moment.
   */
  private compose(base: FleetSnapshot): void {
    const seq = this.readable();
    // Only slugs changed since the last read are read again; the others' rows are still current.
    for (const slug of this.overlayRows.keys()) if (!this.dirty.has(slug)) this.overlayRows.delete(slug);
    const stale = [...this.stale].filter((slug) => this.dirty.has(slug));
    this.stale.clear();
    // A change the mirror may not hold yet is read now and again after its next refresh (scheduled below).
    for (const slug of stale) if (this.dirty.get(slug)! > seq) this.stale.add(slug);
    // Where the changed entries were (the current view, when the base stays) and, below, where they now are.
    const extent = base === this.slot.currentBase() ? new ChangeExtent(base) : undefined;
    extent?.add(stale, this.overlayRows);
    const readSlugs = this.options.source.activeRowsBySlug?.bind(this.options.source);
    if (stale.length > 0 && readSlugs) {
      for (const slug of stale) this.overlayRows.set(slug, null);
      for (const row of readSlugs(stale)) this.overlayRows.set(row.slug, row);
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
    this.viewSeq = seq;
    this.slot.swap(new FleetView(base, base.exclusions(excluded), overlay, unlocated), extent?.change);
    if (this.stale.size > 0) this.scheduleOverlay();
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
    if (this.options.source.refresh) {
      // What the source found changed is read by this build: `generation` is taken after it.
      await this.catchUpSource();
      if (this.closed) return;
    }
    const generation = this.readable();
    if (this.compactTimer) {
      clearTimeout(this.compactTimer);
      this.compactTimer = undefined;
    }
    const loaded = this.baseSource === undefined ? await this.saver?.load() : undefined;
    const { parts, stamp, typeTrees }: BuiltParts = loaded ? { parts: loaded.parts } : await this.buildParts();
    if (this.closed) return;
    if (this.options.source.refresh) {
      // Changes committed while it built (this instance's own too) are read fresh into the overlay below.
      await this.catchUpSource();
      if (this.closed) return;
    }
    this.baseSource = loaded ? "file" : "build";
    const base = new FleetSnapshot(parts);
    const build = ++this.builds;
    // Saved once complete: with its type trees.
    const saveWhenComplete = () => {
      if (stamp && build === this.builds) this.saver?.offer(parts, stamp);
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
      this.markChanged(loaded.changed, ++this.seq);
      this.loadedChanges = loaded.changed.length;
    }
    this.baseUnlocated = { index: new UnlocatedIndex(base.unlocatedEntries), slugs: new Set(base.unlocatedEntries.map((e) => e.slug)) };
    this.compose(base);
    this.baseSeq = Math.max(this.baseSeq, generation);
    if (this.dirty.size > 0) this.scheduleCompaction();
  }

  /** Builds the whole fleet from the source (the first build, with nothing served yet, may use two workers). */
  private buildParts(): Promise<BuiltParts> {
    return this.builder.build(this.baseSeq === 0);
  }
}
