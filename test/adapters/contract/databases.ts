// The two databases a repository contract runs against: SQLite in memory, and a PostgreSQL database of its own on
// the test process's throwaway cluster (a PostgreSQL that cannot start fails the file; it never skips).
import { afterAll, beforeAll, describe } from "bun:test";
import { migrate as migrateSqlite, openDatabase, type Db } from "../../../adapters/sqlite/db";
import { migrate as migratePostgres, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";

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
 * PostgreSQL: a database of its own, migrated; `build` gets a pool of `poolSize` and may open more (`pool()`, as
 * further instances would have), all closed before the database is dropped.
 */
export function onPostgres<T>(build: (db: PgDb, more: { pool(max?: number): PgDb; cluster: TestDatabase }) => T | Promise<T>, poolSize = 6): ContractDatabase<T> {
  let cluster: TestDatabase | undefined;
  const pools: PgDb[] = [];
  const pool = (max = poolSize) => {
    const db = openPostgres(cluster!.url, { max });
    pools.push(db);
    return db;
  };
  return {
    name: "PostgreSQL",
    async open() {
      cluster = await startDatabase();
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

/**
 * The contract's tests, one `describe` ("<title> on <database>") per database in turn: each database is opened
 * before its tests and closed after them. `body` gets what `open` built (usable in tests and hooks, once opened) and
 * the database itself.
 */
export function describeOnBoth<T extends object>(title: string, databases: ContractDatabase<T>[], body: (opened: T, database: ContractDatabase<T>) => void): void {
  for (const database of databases) {
    describe(`${title} on ${database.name}`, () => {
      let value: T | undefined;
      const opened = new Proxy({} as T, {
        get(_, key) {
          if (!value) throw new Error(`${title} on ${database.name}: used before the database was opened`);
          const member = Reflect.get(value, key);
          return typeof member === "function" ? member.bind(value) : member;
        },
      });
      beforeAll(async () => {
        value = await database.open();
      }, 120_000);
      afterAll(() => database.close(), 60_000);
      body(opened, database);
    });
  }
}
