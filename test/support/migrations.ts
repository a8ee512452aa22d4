import { afterAll, expect } from "bun:test";
import { getTableColumns } from "drizzle-orm";
import { toRow, type BookingRecord } from "../../domain/trips/booking-record";
import type { Booking } from "../../domain/trips/booking";
import { openDatabase, type Db } from "../../adapters/sqlite/db";
import { migrations as sqliteMigrations } from "../../adapters/sqlite/migrations";
import * as sqliteSchema from "../../adapters/sqlite/schema";
import { openPostgres, type PgDb } from "../../adapters/postgres/db";
import { migrations as pgMigrations } from "../../adapters/postgres/migrations";
import { startDatabase, type TestDatabase } from "./pg-databases";

/**
 * What the tests of a migration run on existing data share: a database of either kind migrated up to the
 * migration under test (the one whose tag matches), and booking rows written as that older schema holds them.
 */

/** An in-memory SQLite database with every migration before the one tagged `tag` applied; `until`: that one's index. */
export function sqliteBefore(tag: RegExp): { db: Db; until: number } {
  const db = openDatabase(":memory:");
  const sqlite = db.$client;
  sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const until = sqliteMigrations.findIndex((m) => tag.test(m.tag));
  expect(until).toBeGreaterThan(0);
  for (const m of sqliteMigrations.slice(0, until)) {
    for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) sqlite.exec(statement);
    sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, 0)").run(m.tag);
  }
  return { db, until };
}

/**
 * A throwaway PostgreSQL cluster for one describe block: `start` starts it and applies every migration before the
 * one tagged `tag` (`until`: that one's index); the pool and the cluster stop after the block.
 */
export function postgresBefore(tag: RegExp): { start(): Promise<{ db: PgDb; until: number }> } {
  let cluster: TestDatabase | undefined;
  let db: PgDb | undefined;
  afterAll(async () => {
    await db?.$client.close();
    await cluster?.stop();
  }, 60_000);
  return {
    async start() {
      cluster = await startDatabase();
      db = openPostgres(cluster.url, { max: 2 });
      const client = db.$client;
      await client.unsafe("CREATE TABLE IF NOT EXISTS __migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)").simple();
      const until = pgMigrations.findIndex((m) => tag.test(m.tag));
      expect(until).toBeGreaterThan(0);
      for (const m of pgMigrations.slice(0, until)) {
        await client.begin(async (tx) => {
          for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) await tx.unsafe(statement).simple();
          await tx.unsafe("INSERT INTO __migrations (tag, applied_at) VALUES ($1, 0)", [m.tag]);
        });
      }
      return { db, until };
    },
  };
}

/** The booking's row as an INSERT (`?` or `$n` placeholders), without the columns `leaveOut` (added by a later migration). */
export function bookingInsert(b: Booking, placeholder: "?" | "$", leaveOut: ReadonlyArray<keyof BookingRecord> = []): [string, unknown[]] {
  const row = toRow(b, 1);
  const columns = Object.entries(getTableColumns(sqliteSchema.bookings)).filter(([key]) => !leaveOut.includes(key as keyof BookingRecord));
  const marks = columns.map((_, i) => (placeholder === "?" ? "?" : `$${i + 1}`));
  const sql = `INSERT INTO bookings (${columns.map(([, c]) => `"${c.name}"`).join(", ")}) VALUES (${marks.join(", ")})`;
  return [sql, columns.map(([key]) => row[key as keyof typeof row])];
}
