import { Database, constants, type SQLQueryBindings } from "bun:sqlite";
import type { SQL } from "bun";
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { PgDb } from "./db";

/**
 * Moves a TripSwitch SQLite database into a freshly migrated PostgreSQL database: every table, row for row, in one
 * PostgreSQL transaction (all or nothing), in multi-row INSERTs of a few thousand rows. The SQLite file is opened
 * read-only and never written. Sealed secrets (delivery passwords, webhook secrets) are copied as they are, so the
 * instances on PostgreSQL must use the same SECRETS_KEY.
 */

/** Why an import was refused or failed; nothing was written to PostgreSQL. The message is meant for the operator. */
export class SqliteImportError extends Error {}

/** How far the import is: `done` of `total` rows over every table, the current table and its row count. */
export interface ImportProgress {
  table: string;
  tableRows: number;
  done: number;
  total: number;
}

export interface ImportReport {
  /** Rows copied per table, in the order they were copied. */
  tables: Array<{ table: string; rows: number }>;
  /** The next id each identity column hands out after the import. */
  nextIds: Record<string, number>;
}

/**
 * Every table both databases have, parents before the tables that reference them. The stamps and the fleet change
 * log come last and replace PostgreSQL's own with the SQLite file's (the fleet's stamp then describes the same
 * fleet, so a fleet index saved from the SQLite database stays valid).
 */
const DATA_TABLES = [
  "companies",
  "users",
  "platform_tokens",
  "revoked_tokens",
  "login_failures",
  "company_integrations",
  "rate_cards",
  "fleet_entries",
  "fleet_airports",
  "partnerships",
  "partner_vehicle_types",
  "bookings",
  "earlier_offers",
  "cost_recoveries",
  "statement_disputes",
  "vehicle_holds",
  "idempotency_keys",
  "outbox_messages",
  "delivery_attempts",
  "chauffeur_positions",
  "position_trail",
  "audit_events",
  "network_quotes",
  "network_quote_usage",
  "fx_rates",
] as const;
const STAMP_TABLES = ["fleet_changes", "account_generation", "fleet_generation"] as const;
const TABLES: readonly string[] = [...DATA_TABLES, ...STAMP_TABLES];

/** Tables and columns only PostgreSQL has (shared rate budgets, logins in flight, outbox leases, live event bytes counted): left empty. */
const POSTGRES_ONLY_TABLES = new Set(["__migrations", "rate_buckets", "login_attempts", "live_streams", "live_event_usage"]);
/**
 * The live event log is not copied: its ids are each database's own (PostgreSQL numbers them in commit order), so an
 * event stream resumed after the move gets `event: reset` and goes on from the new database's events.
 */
const NOT_IMPORTED = new Set(["live_events", "live_event_bodies"]);
const POSTGRES_ONLY_COLUMNS = new Set(["outbox_messages.lease_owner", "outbox_messages.lease_until"]);

/** Rows per INSERT (fewer for wide tables: PostgreSQL takes at most 65,535 parameters per statement). */
const BATCH_ROWS = 2000;
const MAX_PARAMETERS = 60_000;

/** Taken for the import's transaction, so two imports into one database run one after the other. */
const IMPORT_LOCK_KEY = 0x7472_6970_696d_7074n; // "tripimpt"

interface PgColumn {
  name: string;
  type: string;
  identity: boolean;
}

type Cell = string | number | bigint | boolean | null | Uint8Array;

/**
 * Imports the SQLite file at `sqlitePath` into `pgDb` (migrated, with no companies, bookings or other rows yet).
 * Throws SqliteImportError when it refuses (target not empty, schemas that differ, a value PostgreSQL cannot store,
 * the file changed while it was read); PostgreSQL is then left as it was.
 */
export async function importSqlite(sqlitePath: string, pgDb: PgDb, onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
  const source = openReadOnly(sqlitePath);
  const sqlite = source.db;
  try {
    const pgColumns = await postgresColumns(pgDb.$client);
    const columns = matchSchemas(sqlite, pgColumns);
    const counts = new Map(TABLES.map((t) => [t, Number(exact<{ n: bigint }, []>(sqlite, `SELECT count(*) AS n FROM "${t}"`).get()!.n)]));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);

    return await pgDb.$client.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock($1::bigint)", [IMPORT_LOCK_KEY.toString()]);
      await refuseUnlessEmpty(tx);
      // The stamp triggers would update one row per row inserted (each update slower than the last within one
      // transaction); they are off until the end, and the file's own stamps and change log are copied instead.
      const triggered = await tablesWithTriggers(tx);
      for (const table of triggered) await tx.unsafe(`ALTER TABLE "${table}" DISABLE TRIGGER USER`);
      const report: ImportReport = { tables: [], nextIds: {} };
      let done = 0;
      for (const table of TABLES) {
        const tableRows = counts.get(table)!;
        onProgress?.({ table, tableRows, done, total });
        if ((STAMP_TABLES as readonly string[]).includes(table)) await tx.unsafe(`DELETE FROM "${table}"`);
        const copied = await copyTable(sqlite, tx, table, columns.get(table)!, (n) => {
          done += n;
          onProgress?.({ table, tableRows, done, total });
        });
        report.tables.push({ table, rows: copied });
      }
      if (source.changed()) throw new SqliteImportError(`${sqlitePath} changed while it was being read: stop every service using it, then import again`);
      for (const table of DATA_TABLES) {
        for (const column of columns.get(table)!.filter((c) => c.identity)) {
          report.nextIds[`${table}.${column.name}`] = await continueIdentity(sqlite, tx, table, column.name);
        }
      }
      for (const table of triggered) await tx.unsafe(`ALTER TABLE "${table}" ENABLE TRIGGER USER`);
      // What the fleet trigger would have sent: instances already listening re-read the fleet after the commit.
      await tx.unsafe("SELECT pg_notify('tripswitch_fleet', '')");
      return report;
    });
  } catch (error) {
    if (error instanceof SqliteImportError) throw error;
    throw new SqliteImportError(`import failed, nothing was imported: ${messageOf(error)}`);
  } finally {
    sqlite.close();
  }
}

/** Every PostgreSQL column of the current schema, by table, in column order. */
async function postgresColumns(sql: SQL): Promise<Map<string, PgColumn[]>> {
  const rows: Array<{ table_name: string; column_name: string; data_type: string; is_identity: string }> = await sql.unsafe(
    `SELECT table_name, column_name, data_type, is_identity FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, PgColumn[]>();
  for (const r of rows) {
    const list = byTable.get(r.table_name) ?? [];
    list.push({ name: r.column_name, type: r.data_type, identity: r.is_identity === "YES" });
    byTable.set(r.table_name, list);
  }
  if (!byTable.has("companies")) throw new SqliteImportError("the PostgreSQL database has no TripSwitch schema: run its migrations first");
  return byTable;
}

/**
 * The columns to copy per table. Both databases must hold the same tables and columns (apart from what only
 * PostgreSQL has): an SQLite file from an older version must be migrated first, one from a newer version is refused.
 */
function matchSchemas(sqlite: Database, pg: Map<string, PgColumn[]>): Map<string, PgColumn[]> {
  const sqliteTables = sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all()
    .map((r) => r.name);
  if (!sqliteTables.includes("__migrations") || !sqliteTables.includes("companies"))
    throw new SqliteImportError("the SQLite file is not a TripSwitch database");
  const problems: string[] = [];
  const known = new Set([...TABLES, ...NOT_IMPORTED, "__migrations"]);
  for (const t of sqliteTables) if (!known.has(t)) problems.push(`SQLite table ${t} has no place in PostgreSQL`);
  for (const t of pg.keys()) if (!known.has(t) && !POSTGRES_ONLY_TABLES.has(t)) problems.push(`PostgreSQL table ${t} is not imported`);
  const result = new Map<string, PgColumn[]>();
  for (const table of TABLES) {
    const pgCols = pg.get(table);
    if (!pgCols) {
      problems.push(`PostgreSQL has no table ${table}`);
      continue;
    }
    if (!sqliteTables.includes(table)) {
      problems.push(`SQLite has no table ${table}`);
      continue;
    }
    const sqliteCols = new Set(
      exact<{ name: string }, []>(sqlite, `SELECT name FROM pragma_table_info('${table}')`)
        .all()
        .map((r) => r.name),
    );
    const wanted = pgCols.filter((c) => !POSTGRES_ONLY_COLUMNS.has(`${table}.${c.name}`));
    for (const c of wanted) if (!sqliteCols.has(c.name)) problems.push(`SQLite has no column ${table}.${c.name}`);
    for (const name of sqliteCols) if (!pgCols.some((c) => c.name === name)) problems.push(`PostgreSQL has no column ${table}.${name}`);
    result.set(table, wanted);
  }
  if (problems.length) {
    throw new SqliteImportError(
      `the SQLite and PostgreSQL schemas differ (${problems.join("; ")}): migrate the SQLite file with this version first (DB_PATH=<file> tripswitch ` +
        `migrate), and import with the same version`,
    );
  }
  return result;
}

/** Refuses a target that already holds data (an import adds to nothing: it would clash or mix two histories). */
async function refuseUnlessEmpty(tx: SQL): Promise<void> {
  const filled: string[] = [];
  for (const table of DATA_TABLES) {
    const [row]: Array<{ n: string }> = await tx.unsafe(`SELECT count(*) AS n FROM "${table}"`);
    if (Number(row.n) > 0) filled.push(`${table}: ${Number(row.n)} rows`);
  }
  if (filled.length) throw new SqliteImportError(`the PostgreSQL database is not empty (${filled.join(", ")}): import only into a new, migrated database`);
}

/** The imported tables that have triggers of their own (the stamps), by name. */
async function tablesWithTriggers(tx: SQL): Promise<string[]> {
  const rows: Array<{ name: string }> = await tx.unsafe(
    `SELECT DISTINCT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
     WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace ORDER BY 1`,
  );
  return rows.map((r) => r.name).filter((name) => TABLES.includes(name));
}

/** Copies one table in batches, reading the SQLite file page by page (by rowid); returns the rows copied. */
async function copyTable(sqlite: Database, tx: SQL, table: string, columns: PgColumn[], copied: (rows: number) => void): Promise<number> {
  const perBatch = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  const names = columns.map((c) => `"${c.name}"`).join(", ");
  const read = exact<Record<string, Cell>, [bigint, number]>(
    sqlite,
    `SELECT _rowid_ AS "__rowid", ${names} FROM "${table}" WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ?`,
  );
  let after = -(2n ** 63n);
  let count = 0;
  for (;;) {
    const rows = read.all(after, perBatch);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].__rowid as bigint;
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const row of rows) {
      const slots: string[] = [];
      for (const c of columns) {
        params.push(convert(row[c.name], c, table, row.__rowid as bigint));
        slots.push(`$${params.length}::${c.type}`);
      }
      tuples.push(`(${slots.join(", ")})`);
    }
    try {
      await tx.unsafe(`INSERT INTO "${table}" (${names}) VALUES ${tuples.join(", ")}`, params);
    } catch (error) {
      throw new SqliteImportError(`PostgreSQL refused rows of ${table}, nothing was imported: ${messageOf(error)}`);
    }
    count += rows.length;
    copied(rows.length);
  }
  return count;
}

/** One SQLite value as the PostgreSQL column's type wants it (0/1 → boolean, 64-bit integers kept exact). */
function convert(value: Cell | undefined, column: PgColumn, table: string, rowid: bigint): unknown {
  const where = () => `${table}.${column.name} (SQLite row ${rowid})`;
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) throw new SqliteImportError(`${where()} holds a blob; PostgreSQL expects ${column.type}`);
  switch (column.type) {
    case "boolean":
      if (value === 0n || value === 0) return false;
      if (value === 1n || value === 1) return true;
      throw new SqliteImportError(`${where()} is ${JSON.stringify(String(value))}, not 0 or 1`);
    case "bigint":
    case "integer":
      if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
      return value;
    case "double precision":
      return typeof value === "bigint" ? Number(value) : value;
    case "text": {
      const text = typeof value === "string" ? value : String(value);
      if (text.includes("\u0000")) throw new SqliteImportError(`${where()} holds a NUL character, which PostgreSQL text cannot store`);
      return text;
    }
    default:
      return value;
  }
}

/**
 * Moves an identity column's sequence past every id the SQLite table has used: the largest id present and
 * SQLite's AUTOINCREMENT high-water mark (ids of deleted rows are never handed out again). Returns the next id.
 */
async function continueIdentity(sqlite: Database, tx: SQL, table: string, column: string): Promise<number> {
  const present = exact<{ m: bigint | null }, []>(sqlite, `SELECT max("${column}") AS m FROM "${table}"`).get()?.m ?? 0n;
  const hasSequence = exact(sqlite, "SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get() !== null;
  const used = hasSequence ? (exact<{ seq: bigint }, [string]>(sqlite, "SELECT seq FROM sqlite_sequence WHERE name = ?").get(table)?.seq ?? 0n) : 0n;
  const next = (present > used ? present : used) + 1n;
  await tx.unsafe(`SELECT setval(pg_get_serial_sequence($1, $2), $3::bigint, false)`, [table, column, next.toString()]);
  return Number(next);
}

/** A statement on the SQLite file that reads integers as bigint (exact beyond 2^53; numbers where they fit). */
function exact<T, P extends SQLQueryBindings[] = []>(db: Database, text: string) {
  return db.query<T, P>(text).safeIntegers(true);
}

/**
 * The SQLite file opened for reading only. A file closed cleanly (no WAL or journal beside it) is opened immutable,
 * so that not even SQLite's shared-memory and WAL files are created beside it; `changed()` then tells a service that
 * opened it meanwhile by the WAL file that appears. With a WAL beside it
 * (a service running, or one that stopped without a checkpoint) it is opened read-only in the ordinary way, and
 * `changed()` compares SQLite's data version, which moves when another connection commits.
 */
function openReadOnly(path: string): { db: Database; changed(): boolean } {
  const wal = `${path}-wal`;
  const clean = !existsSync(wal) && !existsSync(`${path}-journal`);
  let db: Database;
  try {
    if (clean) {
      const uri = `file:${encodeURI(resolve(path)).replaceAll("?", "%3F").replaceAll("#", "%23")}?immutable=1`;
      db = new Database(uri, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
    } else {
      db = new Database(path, { readonly: true });
      db.exec("PRAGMA busy_timeout = 5000");
    }
    db.query("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    throw new SqliteImportError(`cannot read ${path} as an SQLite database: ${messageOf(error)}`);
  }
  const stat = () => {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  };
  const before = stat();
  const version = () => Number(exact<{ data_version: bigint }, []>(db, "PRAGMA data_version").get()!.data_version);
  const startVersion = version();
  return { db, changed: () => (clean ? existsSync(wal) || stat() !== before : version() !== startVersion) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
