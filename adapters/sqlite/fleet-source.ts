import { Database } from "bun:sqlite";
import type { CommitWatch, FleetSource, FleetStamp, IndexRow, RowRange } from "../../domain/fleet/source";

/** An active entry as the search index reads it straight from SQLite: airports as the stored comma-separated list. */
export type FleetIndexRow = IndexRow & { airports: string };

const INDEX_COLUMNS =
  "slug, netid, type, name, description, image_url AS imageUrl, max_passengers AS maxPassengers, max_luggage AS maxLuggage, lat, lon, airports, " +
    "minimum_rate AS minimumRate, hourly_rate AS hourlyRate, currency";

/**
 * The bulk read's columns: INDEX_COLUMNS, every entry's airports included (quotes find the entries listing a
 * pickup airport through the index; the index interns the few distinct lists).
 */
const BULK_INDEX_COLUMNS = INDEX_COLUMNS;

/**
 * Every active entry, streamed row by row in rowid order, without drizzle's mapping: the index build
 * reads a million rows this way (in its workers, on their own read-only connections). With `after` /
 * `upTo`, only the rows whose rowid is in (after, upTo]: each build worker reads its own share.
 */
export function activeIndexRows(sqlite: Database, range: RowRange = {}): IterableIterator<FleetIndexRow> {
  const where = ["active = 1"];
  const bounds: number[] = [];
  if (range.after !== undefined) {
    where.push("rowid > ?");
    bounds.push(range.after);
  }
  if (range.upTo !== undefined) {
    where.push("rowid <= ?");
    bounds.push(range.upTo);
  }
  return sqlite
    .query<FleetIndexRow, number[]>(`SELECT ${BULK_INDEX_COLUMNS} FROM fleet_entries WHERE ${where.join(" AND ")} ORDER BY rowid`)
    .iterate(...bounds);
}

/** The active entries among `slugs` (a missing or inactive slug is simply absent). */
export function activeIndexRowsBySlug(sqlite: Database, slugs: readonly string[]): FleetIndexRow[] {
  const rows: FleetIndexRow[] = [];
  const bySlug = sqlite.query<FleetIndexRow, [string]>(`SELECT ${INDEX_COLUMNS} FROM fleet_entries WHERE slug = ? AND active = 1`);
  for (const slug of slugs) {
    const row = bySlug.get(slug);
    if (row) rows.push(row);
  }
  return rows;
}

/** Changes logged after the saved index's stamp, at most (the triggers of migration 0010 use the same number). */
export const FLEET_CHANGE_LOG_LIMIT = 50_000;

/**
 * The slugs of the entries changed since `saved` (the stamp of a saved fleet index), read in one snapshot:
 * [] when nothing changed; undefined when the change log does not cover every change since (it starts at
 * another stamp, has a gap, or the changes passed its limit) or more than `maxSlugs` slugs changed — the
 * caller then builds from the database.
 */
export function fleetChangesSince(sqlite: Database, saved: FleetStamp, maxSlugs: number): string[] | undefined {
  const own = !sqlite.inTransaction;
  if (own) sqlite.exec("BEGIN");
  try {
    const row = sqlite
      .query<{ n: number; token: string; base: number; baseToken: string | null }, []>(
        "SELECT n, token, log_base AS base, log_base_token AS baseToken FROM fleet_generation WHERE id = 1",
      )
      .get();
    if (!row) return undefined;
    if (row.n === saved.n && row.token === saved.token) return [];
    if (row.base < 0 || row.base !== saved.n || row.baseToken !== saved.token || row.n - row.base > FLEET_CHANGE_LOG_LIMIT) return undefined;
    // Every change after the base adds at least one row with its own n: a missing n is an unlogged change.
    const logged = sqlite.query<{ c: number }, [number]>("SELECT count(DISTINCT n) AS c FROM fleet_changes WHERE n > ?").get(row.base)?.c ?? 0;
    if (logged !== row.n - row.base) return undefined;
    const slugs = sqlite
      .query<{ slug: string }, [number, number]>("SELECT DISTINCT slug FROM fleet_changes WHERE n > ? LIMIT ?")
      .all(row.base, maxSlugs + 1)
      .map((r) => r.slug);
    return slugs.length <= maxSlugs ? slugs : undefined;
  } catch (error) {
    // A database from before migration 0010 has no change log.
    if (error instanceof Error && /no such (table|column)/.test(error.message)) return undefined;
    throw error;
  } finally {
    if (own) sqlite.exec("COMMIT");
  }
}

/**
 * Records that the fleet index of `stamp` was saved: the change log now starts there (changes after it are
 * logged; rows up to it, no longer needed, are deleted — at most FLEET_CHANGE_LOG_LIMIT of them).
 */
export function markFleetIndexSaved(sqlite: Database, stamp: FleetStamp): void {
  sqlite.transaction(() => {
    sqlite.query("UPDATE fleet_generation SET log_base = ?, log_base_token = ? WHERE id = 1").run(stamp.n, stamp.token);
    sqlite.query("DELETE FROM fleet_changes WHERE n <= ?").run(stamp.n);
  })();
}

/**
 * The fleet's stamp (fleet_generation), read on `sqlite`: inside a read transaction it belongs to that
 * transaction's snapshot. Undefined on a database without the table (not migrated).
 */
export function readFleetStamp(sqlite: Database): FleetStamp | undefined {
  try {
    return sqlite.query<FleetStamp, []>("SELECT n, token FROM fleet_generation WHERE id = 1").get() ?? undefined;
  } catch (error) {
    if (error instanceof Error && error.message.includes("no such table")) return undefined;
    throw error;
  }
}

/** The fleet as the search index reads it, on a connection to the database (see FleetSource). */
export class SqliteFleetSource implements FleetSource {
  constructor(private readonly sqlite: Database) {}

  get location(): string | undefined {
    const file = this.sqlite.filename;
    return file && file !== ":memory:" ? file : undefined;
  }

  activeRows(range?: RowRange): Iterable<FleetIndexRow> {
    return activeIndexRows(this.sqlite, range);
  }

  activeRowsBySlug(slugs: readonly string[]): FleetIndexRow[] {
    return activeIndexRowsBySlug(this.sqlite, slugs);
  }

  rowSpan(): { first: number; last: number } | undefined {
    const span = this.sqlite.query<{ lo: number | null; hi: number | null }, []>("SELECT min(rowid) AS lo, max(rowid) AS hi FROM fleet_entries").get();
    return span && span.lo !== null && span.hi !== null ? { first: span.lo, last: span.hi } : undefined;
  }

  stamp(): FleetStamp | undefined {
    return readFleetStamp(this.sqlite);
  }

  changesSince(saved: FleetStamp, maxSlugs: number): string[] | undefined {
    return fleetChangesSince(this.sqlite, saved, maxSlugs);
  }

  markSaved(stamp: FleetStamp): void {
    markFleetIndexSaved(this.sqlite, stamp);
  }

  inOneSnapshot<T>(read: () => T, fixed?: () => void): T {
    this.sqlite.exec("BEGIN");
    try {
      // The first read fixes the transaction's snapshot (WAL): from here on every read sees that moment.
      this.sqlite.query("SELECT 1 FROM fleet_entries LIMIT 1").get();
      fixed?.();
      const result = read();
      this.sqlite.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
      throw error;
    }
  }

  /** A third connection: its data_version moves with every commit made on any other connection. */
  watchCommits(): CommitWatch | undefined {
    const location = this.location;
    if (!location) return undefined;
    const probe = new Database(location, { readonly: true });
    const dataVersion = probe.query<{ data_version: number }, []>("PRAGMA data_version");
    return {
      version: () => dataVersion.get()?.data_version,
      stamp: () => readFleetStamp(probe),
      close: () => probe.close(),
    };
  }
}

/** The fleet of the database file `location` on a read-only connection of its own (a build worker's). */
export function openFleetSource(location: string): { source: FleetSource; close(): void } {
  const db = new Database(location, { readonly: true });
  db.exec("PRAGMA busy_timeout = 5000");
  return { source: new SqliteFleetSource(db), close: () => db.close() };
}
