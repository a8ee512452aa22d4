import { SQL } from "bun";
import { eq, sql } from "drizzle-orm";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { migrations } from "./migrations";

export type PgDb = BunSQLDatabase<typeof schema> & { $client: SQL };

/** The row of `table` whose `column` equals the placeholder `key`, prepared once as `name` (a hot lookup): `.execute({ [key]: value })`. */
export function preparedByKey<T extends PgTable>(db: PgDb, table: T, column: PgColumn, key: string, name: string) {
  // `from` checks a generic table against subqueries without `returning` (a table never is one): the table stands as `never`.
  return db.select().from<T>(table as never).where(eq(column, sql.placeholder(key))).limit(1).prepare(name);
}

/** Options of the connection pool (Bun's built-in PostgreSQL client). */
export interface PgPoolOptions {
  /** Connections in the pool (Bun's default is 10). */
  max?: number;
}

/** Opens a pool on `url` (postgres://…) and wraps it in drizzle with the PostgreSQL schema. */
export function openPostgres(url: string, options: PgPoolOptions = {}): PgDb {
  const client = new SQL(url, { max: options.max ?? 10 });
  return drizzle({ client, schema }) as PgDb;
}

/**
 * The advisory lock every instance takes before migrating: whoever gets it first applies the pending migrations,
 * the others wait and then find nothing left to do. A fixed 64-bit key shared by every version of the service.
 */
export const MIGRATION_LOCK_KEY = 0x7472_6970_7377_6974n; // "tripswit"

/**
 * Applies every embedded migration not yet applied, each in its own transaction, under a session-level advisory
 * lock held on one reserved connection — so any number of instances may start at once. Returns the tags this
 * call applied (empty when another instance got there first or nothing is pending).
 */
export async function migrate(client: SQL): Promise<string[]> {
  const conn = await client.reserve();
  try {
    await conn.unsafe("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY.toString()]);
    try {
      await conn.unsafe("CREATE TABLE IF NOT EXISTS __migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)").simple();
      const rows: Array<{ tag: string }> = await conn.unsafe("SELECT tag FROM __migrations");
      const applied = new Set(rows.map((r) => r.tag));
      const done: string[] = [];
      for (const m of migrations) {
        if (applied.has(m.tag)) continue;
        await conn.begin(async (tx) => {
          for (const statement of m.sql.split("--> statement-breakpoint")) {
            if (statement.trim()) await tx.unsafe(statement).simple();
          }
          await tx.unsafe("INSERT INTO __migrations (tag, applied_at) VALUES ($1, $2)", [m.tag, Math.floor(Date.now() / 1000)]);
        });
        done.push(m.tag);
      }
      return done;
    } finally {
      await conn.unsafe("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    conn.release();
  }
}
