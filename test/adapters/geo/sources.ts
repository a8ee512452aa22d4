import type { Database } from "bun:sqlite";
import { SqliteFleetSource } from "../../../adapters/sqlite/fleet-source";
import type { FleetSource, IndexRow } from "../../../domain/fleet/source";

/** A fleet source over rows held in memory: no location (builds are sent the rows), no stamp, no change log. */
export function rowsSource(rows: () => Iterable<IndexRow>, bySlug?: (slugs: readonly string[]) => IndexRow[]): FleetSource {
  return {
    location: undefined,
    activeRows: () => rows(),
    ...(bySlug ? { activeRowsBySlug: bySlug } : {}),
    rowSpan: () => undefined,
    stamp: () => undefined,
    changesSince: () => undefined,
    markSaved: () => {},
    inOneSnapshot: (read, fixed) => {
      fixed?.();
      return read();
    },
    watchCommits: () => undefined,
  };
}

/**
 * The SQLite fleet source of `db` (as the service wires it), or with a capability left out: reading single
 * entries (`bySlug`), listing the changes since a stamp (`changesSince`), recording a saved index (`markSaved`).
 */
export function sqliteSource(db: Database, without: { bySlug?: false; changesSince?: false; markSaved?: false } = {}): FleetSource {
  const s = new SqliteFleetSource(db);
  return {
    location: s.location,
    activeRows: (range) => s.activeRows(range),
    ...(without.bySlug === false ? {} : { activeRowsBySlug: (slugs: readonly string[]) => s.activeRowsBySlug(slugs) }),
    rowSpan: () => s.rowSpan(),
    stamp: () => s.stamp(),
    changesSince: without.changesSince === false ? () => undefined : (saved, max) => s.changesSince(saved, max),
    markSaved: without.markSaved === false ? () => {} : (stamp) => s.markSaved(stamp),
    inOneSnapshot: (read, fixed) => s.inOneSnapshot(read, fixed),
    watchCommits: () => s.watchCommits(),
  };
}

/**
 * A mirroring fleet source, as PgFleetSource is: reads answer from a mirror that `refresh` brings up to the store
 * (`commit` writes there). Refreshes run one at a time in call order; each reads the store when it starts and
 * ends later. `hold()` keeps the next refresh from ending (after it has read) until `release()`, so a test can
 * commit a change between its read and its end.
 */
export function mirrorSource() {
  const store = new Map<string, IndexRow>();
  const changed = new Set<string>();
  let mirror = new Map<string, IndexRow>();
  let loaded = false;
  let queue: Promise<unknown> = Promise.resolve();
  let held: { read: () => void; release: Promise<void> } | undefined;

  async function catchUp(): Promise<readonly string[] | undefined> {
    const read = new Map(store);
    const slugs = loaded ? [...changed] : undefined;
    changed.clear();
    const gate = held;
    held = undefined;
    if (gate) {
      gate.read();
      await gate.release;
    }
    mirror = read;
    loaded = true;
    return slugs;
  }

  const source: FleetSource = {
    ...rowsSource(() => mirror.values()),
    activeRowsBySlug: (slugs) => slugs.flatMap((slug) => mirror.get(slug) ?? []),
    refresh() {
      const run = queue.then(catchUp);
      queue = run.catch(() => {});
      return run;
    },
  };
  return {
    source,
    /** Writes `row` to the store. */
    commit(row: IndexRow) {
      store.set(row.slug, row);
      changed.add(row.slug);
    },
    /** The next refresh waits after its read; resolves once it has read, with the function that lets it end. */
    hold(): Promise<() => void> {
      let read!: () => void;
      let end!: () => void;
      const readDone = new Promise<void>((resolve) => (read = resolve));
      const release = new Promise<void>((resolve) => (end = resolve));
      held = { read, release };
      return readDone.then(() => end);
    },
  };
}
