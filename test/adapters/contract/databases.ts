// The two databases a repository contract runs against: SQLite in memory, and PostgreSQL in a throwaway cluster
// started for the file (a PostgreSQL that cannot start fails the file; it never skips).
import { migrate as migrateSqlite, openDatabase, type Db } from "../../../adapters/sqlite/db";
import { migrate as migratePostgres, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { startCluster, type PgCluster } from "../../../scripts/pg-cluster";

/** One database the contract's `describe` runs on: `open` builds the repositories, `close` stops everything. */
export interface ContractDatabase<T> {
  name: string;
  open(): Promise<T>;
  close(): Promise<void>;
}

/** SQLite in memory, migrated. */
export function onSqlite<T>(build: (db: Db) => T | Promise<T>): ContractDatabase<T> {
  let db: Db | undefined;
  return {
    name: "SQLite",
    async open() {
      db = openDatabase(":memory:");
      migrateSqlite(db);
      return build(db);
    },
    async close() {
      db?.$client.close();
    },
  };
}

/**
 * PostgreSQL: a throwaway cluster, migrated; `build` gets a pool of `poolSize` and may open more (`pool()`, as
 * further instances would have), all closed with the cluster.
 */
export function onPostgres<T>(build: (db: PgDb, more: { pool(max?: number): PgDb; cluster: PgCluster }) => T | Promise<T>, poolSize = 6): ContractDatabase<T> {
  let cluster: PgCluster | undefined;
  const pools: PgDb[] = [];
  const pool = (max = poolSize) => {
    const db = openPostgres(cluster!.url, { max });
    pools.push(db);
    return db;
  };
  return {
    name: "PostgreSQL",
    async open() {
      cluster = await startCluster();
      const db = pool();
      await migratePostgres(db.$client);
      return build(db, { pool, cluster });
    },
    async close() {
      for (const db of pools.splice(0)) await db.$client.close();
      await cluster?.stop();
    },
  };
}
