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
