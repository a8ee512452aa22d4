import type { IndexRow } from "../geo/index-parts";
import type { Database } from "bun:sqlite";
import { and, asc, count, eq, gte, lt } from "drizzle-orm";
import type { FleetEntry } from "../../domain/fleet/entry";
import { FleetFullError, type FleetRepository, type NewFleetEntry } from "../../domain/fleet/ports";
import { firstFreeSlug } from "../../domain/fleet/slug";
import { changed } from "./account-repositories";
import type { Db } from "./db";
import { fleetEntries } from "./schema";

type FleetRow = typeof fleetEntries.$inferSelect;

/** Row → domain entry. Airports are stored as a comma-separated list of upper-case codes. */
export function toFleetEntry(row: FleetRow): FleetEntry {
  return {
    slug: row.slug,
    netid: row.netid,
    type: row.type,
    name: row.name,
    description: row.description,
    imageUrl: row.imageUrl,
    maxPassengers: row.maxPassengers,
    maxLuggage: row.maxLuggage,
    lat: row.lat,
    lon: row.lon,
    airports: row.airports ? row.airports.split(",") : [],
    minimumRate: row.minimumRate,
    hourlyRate: row.hourlyRate,
    currency: row.currency,
    active: row.active,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toRow(e: FleetEntry): FleetRow {
  return { ...e, airports: e.airports.join(",") };
}

export class SqliteFleetRepository implements FleetRepository {
  constructor(private readonly db: Db) {}

  async listByNetid(netid: string, page: { limit: number; offset: number }) {
    const items = this.db
      .select()
      .from(fleetEntries)
      .where(eq(fleetEntries.netid, netid))
      .orderBy(asc(fleetEntries.slug))
      .limit(page.limit)
      .offset(page.offset)
      .all()
      .map(toFleetEntry);
    const total = this.db.select({ n: count() }).from(fleetEntries).where(eq(fleetEntries.netid, netid)).get()?.n ?? 0;
    return { items, total };
  }

  async find(netid: string, slug: string): Promise<FleetEntry | undefined> {
    const row = this.db
      .select()
      .from(fleetEntries)
      .where(and(eq(fleetEntries.slug, slug.trim().toLowerCase()), eq(fleetEntries.netid, netid)))
      .get();
    return row ? toFleetEntry(row) : undefined;
  }

  async insertAll(entries: NewFleetEntry[], onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]> {
    const saved: FleetEntry[] = [];
    // Slugs are chosen inside the write transaction, so two writers can never pick the same one.
    this.db.transaction((tx) => {
      // The quota is counted in the same transaction, so simultaneous imports cannot pass it together.
      if (maxEntries !== undefined && entries.length > 0) {
        const current = tx.select({ n: count() }).from(fleetEntries).where(eq(fleetEntries.netid, entries[0].netid)).get()?.n ?? 0;
        if (current + entries.length > maxEntries) throw new FleetFullError(current);
      }
      const takenByBase = new Map<string, Set<string>>();
      for (let i = 0; i < entries.length; i++) {
        const { slugBase, ...fields } = entries[i];
        let taken = takenByBase.get(slugBase);
        if (!taken) {
          taken = new Set(
            tx
              .select({ slug: fleetEntries.slug })
              .from(fleetEntries)
              .where(and(gte(fleetEntries.slug, slugBase), lt(fleetEntries.slug, `${slugBase}\uffff`)))
              .all()
              .map((r) => r.slug),
          );
          takenByBase.set(slugBase, taken);
        }
        const slug = firstFreeSlug(slugBase, taken);
        // Every family whose base is a prefix of the new slug ("acme-sedan" for "acme-sedan-2") must see it.
        for (let len = 1; len <= slug.length; len++) takenByBase.get(slug.slice(0, len))?.add(slug);
        const entry: FleetEntry = { ...fields, slug };
        tx.insert(fleetEntries).values(toRow(entry)).run();
        saved.push(entry);
        if (onProgress && (i % 500 === 499 || i === entries.length - 1)) onProgress(i + 1);
      }
    });
    return saved;
  }

  async update(entry: FleetEntry): Promise<boolean> {
    const { slug, netid, createdAt, ...fields } = toRow(entry);
    return changed(
      this.db
        .update(fleetEntries)
        .set(fields)
        .where(and(eq(fleetEntries.slug, slug), eq(fleetEntries.netid, netid)))
        .run(),
    );
  }

  async remove(netid: string, slug: string): Promise<boolean> {
    return changed(this.db.delete(fleetEntries).where(and(eq(fleetEntries.slug, slug.trim().toLowerCase()), eq(fleetEntries.netid, netid))).run());
  }

  async activeEntries(): Promise<FleetEntry[]> {
    return this.db.select().from(fleetEntries).where(eq(fleetEntries.active, true)).all().map(toFleetEntry);
  }
}

/** An active entry as the search index reads it straight from SQLite: airports as the stored comma-separated list. */
export type FleetIndexRow = IndexRow & { airports: string };

const INDEX_COLUMNS =
  "slug, netid, type, name, description, image_url AS imageUrl, max_passengers AS maxPassengers, max_luggage AS maxLuggage, lat, lon, airports, minimum_rate AS minimumRate, hourly_rate AS hourlyRate";

/**
 * The bulk read's columns: as INDEX_COLUMNS, but the airports only of entries without a position (the
 * only ones whose airports the index keeps), so a million located rows do not each make a string.
 */
const BULK_INDEX_COLUMNS =
  "slug, netid, type, name, description, image_url AS imageUrl, max_passengers AS maxPassengers, max_luggage AS maxLuggage, lat, lon, CASE WHEN lat IS NULL OR lon IS NULL THEN airports ELSE '' END AS airports, minimum_rate AS minimumRate, hourly_rate AS hourlyRate";

/**
 * Every active entry, streamed row by row in rowid order, without drizzle's mapping: the index build
 * reads a million rows this way (in its workers, on their own read-only connections). With `after` /
 * `upTo`, only the rows whose rowid is in (after, upTo]: each build worker reads its own share.
 */
export function activeIndexRows(sqlite: Database, range: { after?: number; upTo?: number } = {}): IterableIterator<FleetIndexRow> {
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
  return sqlite.query<FleetIndexRow, number[]>(`SELECT ${BULK_INDEX_COLUMNS} FROM fleet_entries WHERE ${where.join(" AND ")} ORDER BY rowid`).iterate(...bounds);
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
export function fleetChangesSince(sqlite: Database, saved: { n: number; token: string }, maxSlugs: number): string[] | undefined {
  const own = !sqlite.inTransaction;
  if (own) sqlite.exec("BEGIN");
  try {
    const row = sqlite
      .query<{ n: number; token: string; base: number; baseToken: string | null }, []>("SELECT n, token, log_base AS base, log_base_token AS baseToken FROM fleet_generation WHERE id = 1")
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
export function markFleetIndexSaved(sqlite: Database, stamp: { n: number; token: string }): void {
  sqlite.transaction(() => {
    sqlite.query("UPDATE fleet_generation SET log_base = ?, log_base_token = ? WHERE id = 1").run(stamp.n, stamp.token);
    sqlite.query("DELETE FROM fleet_changes WHERE n <= ?").run(stamp.n);
  })();
}

/**
 * The fleet's stamp (fleet_generation), read on `sqlite`: inside a read transaction it belongs to that
 * transaction's snapshot. Undefined on a database without the table (not migrated).
 */
export function readFleetStamp(sqlite: Database): { n: number; token: string } | undefined {
  try {
    return sqlite.query<{ n: number; token: string }, []>("SELECT n, token FROM fleet_generation WHERE id = 1").get() ?? undefined;
  } catch (error) {
    if (error instanceof Error && error.message.includes("no such table")) return undefined;
    throw error;
  }
}
