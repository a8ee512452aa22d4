import type { FleetSource, FleetStamp } from "../../../domain/fleet/source";
import type { IndexParts } from "../parts";
import { loadIndexFile, saveIndexFile } from "./index-file";

export interface SaverOptions {
  /** The file the index is saved to (beside the database). */
  file: string;
  source: FleetSource;
  /** A saved index that is behind is loaded only when at most this many entries changed since. */
  maxChanges: number;
  /** How long after a build its save starts, and the least time between two saves. */
  saveDelayMs?: number;
  saveEveryMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * The saved index file of a fleet index: loads it at the first build when it fits the source's fleet, and
 * saves the newest build from the source (after `saveDelayMs`, at most once per `saveEveryMs`, or now).
 * Once a stamp is saved the source is told (its change log then starts there).
 */
export class IndexSaver {
  /** The newest base built from the source, with its stamp (what a save writes). */
  private latest: { parts: IndexParts; stamp: FleetStamp } | undefined;
  private savedStamp: FleetStamp | undefined;
  private lastSaveAt = -Infinity;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: SaverOptions) {}

  /**
   * The saved index, when there is one of exactly the source's current fleet, or of an earlier state the
   * source's change log leads on from (with the slugs changed since, at most maxChanges of them).
   */
  async load(): Promise<{ parts: IndexParts; changed: string[] } | undefined> {
    const { file, source } = this.options;
    const current = source.stamp();
    if (!current) return undefined;
    try {
      let changed: string[] = [];
      let stamp: FleetStamp | undefined;
      const parts = await loadIndexFile(file, (saved) => {
        if (saved.n !== current.n || saved.token !== current.token) {
          // The changed entries are re-read one by one: without that a behind index cannot be brought up to date.
          if (!source.activeRowsBySlug) return false;
          const slugs = source.changesSince(saved, this.options.maxChanges);
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

  /** A complete base built from the source: saved in turn, unless its stamp is saved already. */
  offer(parts: IndexParts, stamp: FleetStamp): void {
    this.latest = { parts, stamp };
    this.schedule();
  }

  /**
   * Saves the newest build now if it is not saved yet (a save due later is brought forward) and resolves
   * once no save is in progress.
   */
  async saveNow(): Promise<void> {
    await this.saving;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.start();
    await this.saving;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Saves the newest build, unless that stamp is saved already or a save is due later. */
  private schedule(): void {
    if (this.timer || this.saving || this.closed) return;
    const wait = Math.max(this.options.saveDelayMs ?? 1_000, this.lastSaveAt + (this.options.saveEveryMs ?? 60_000) - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start();
    }, wait);
    (this.timer as unknown as { unref?: () => void }).unref?.();
  }

  private start(): void {
    const latest = this.latest;
    if (!latest || this.saving || this.closed || (this.savedStamp?.n === latest.stamp.n && this.savedStamp.token === latest.stamp.token)) return;
    this.lastSaveAt = Date.now();
    this.saving = saveIndexFile(this.options.file, latest.parts, latest.stamp)
      .then(() => {
        this.savedStamp = latest.stamp;
        this.options.source.markSaved(latest.stamp);
      })
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.saving = undefined;
        // A build that ended during the save: its stamp is saved in turn.
        if (this.latest !== latest) this.schedule();
      });
  }
}
