import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { eq, sql } from "drizzle-orm";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";
import { migrations } from "./migrations";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/** The rows of `table` whose `column` equals the placeholder `key`, prepared once (a hot lookup): `.get({ [key]: value })`. */
export function preparedByKey<T extends SQLiteTable>(db: Db, table: T, column: SQLiteColumn, key: string) {
  return db.select().from(table).where(eq(column, sql.placeholder(key))).prepare();
}

/**
 * Opens the SQLite file (creating its directory), in WAL mode with synchronous=FULL so that a
 * committed write survives power loss, a busy timeout (bun:sqlite defaults to 0) and foreign keys on.
 */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  if (path !== ":memory:") restrictFiles(path);
  return configuredDatabase(sqlite);
}

/**
 * openDatabase's settings (WAL, synchronous=FULL, the busy timeout, foreign keys) and drizzle on an open connection:
 * the test harness gives it in-memory copies of a database migrated once (Database.deserialize, strict).
 */
export function configuredDatabase(sqlite: Database): Db {
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  return drizzle({ client: sqlite, schema }) as Db;
}

/**
 * Database, WAL and shared-memory files readable by their owner only (0600): they hold password hashes and
 * bookings. SQLite gives the WAL and SHM files it creates the database file's mode.
 */
function restrictFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch {}
  }
}

/** Applies every embedded migration not yet applied, each in its own transaction. Returns the tags applied. */
export function migrate(db: Db): string[] {
  const sqlite = db.$client;
  sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(sqlite.query<{ tag: string }, []>("SELECT tag FROM __migrations").all().map((r) => r.tag));
  const done: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.tag)) continue;
    sqlite.transaction(() => {
      for (const statement of m.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) sqlite.exec(statement);
      }
      sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, Math.floor(Date.now() / 1000));
    })();
    done.push(m.tag);
  }
  return done;
}
