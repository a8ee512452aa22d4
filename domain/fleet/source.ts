import type { FleetEntry } from "./entry";

/** One active fleet entry as the search index reads it (a FleetEntry, or a row read straight from storage). */
export type IndexRow = Pick<
  FleetEntry,
  "slug" | "netid" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "lat" | "lon" | "minimumRate" | "hourlyRate" | "currency"
> & {
  /** IATA codes served: an array, or the stored comma-separated list. */
  airports: readonly string[] | string;
};

/** Which state of the fleet something was read from: changes with every entry written. */
export interface FleetStamp {
  n: number;
  token: string;
}

/** Rows by storage position: those after `after` up to `upTo` (either end open when unset). */
export interface RowRange {
  after?: number;
  upTo?: number;
}

/**
 * A second reader of the fleet that notices every commit, by anyone: a build split across threads reads
 * `version()` before and after its readers fix their snapshot; equal versions prove they read one moment.
 */
export interface CommitWatch {
  version(): number | undefined;
  /** The fleet's stamp as this reader sees it. */
  stamp(): FleetStamp | undefined;
  close(): void;
}

/** Where the search index reads the active fleet from. Every read is synchronous (a mirror catches up in `refresh`). */
export interface FleetSource {
  /**
   * Where another thread can open this same fleet (see the adapter's opener); undefined when only this
   * reader sees it (an in-memory store): builds then read the rows here and hand them over.
   */
  readonly location: string | undefined;
  /** Every active entry in storage order (or those of `range`), streamed. */
  activeRows(range?: RowRange): Iterable<IndexRow>;
  /**
   * The active entries among `slugs` (a missing or inactive slug is simply absent). A source that cannot read
   * single entries leaves it out: every change then waits for a full rebuild.
   */
  activeRowsBySlug?(slugs: readonly string[]): IndexRow[];
  /** The first and last storage position of any entry, active or not; undefined when there is none. */
  rowSpan(): { first: number; last: number } | undefined;
  /** The fleet's current stamp; undefined when the store cannot tell. */
  stamp(): FleetStamp | undefined;
  /**
   * The slugs changed since `saved` (the stamp of a saved index): [] when nothing changed; undefined when the
   * store cannot list every change since, or more than `maxSlugs` changed.
   */
  changesSince(saved: FleetStamp, maxSlugs: number): string[] | undefined;
  /** The index of `stamp` is saved: changes before it need not be listed any more. */
  markSaved(stamp: FleetStamp): void;
  /** Runs `read` on one snapshot of the fleet (every read inside sees one moment); `fixed` runs once that moment is fixed. */
  inOneSnapshot<T>(read: () => T, fixed?: () => void): T;
  /** A separate reader noticing every commit; undefined when there is none (an in-memory store). */
  watchCommits(): CommitWatch | undefined;
  /**
   * A source mirroring another store brings itself up to date: the slugs it found changed, undefined when
   * anything may have. Readers await it before they read rows that must include a change just committed.
   */
  refresh?(): Promise<readonly string[] | undefined>;
}
