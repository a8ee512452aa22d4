import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";

/**
 * Files only one database has: the mechanism exists only there. Every other file serves the same port in both
 * folders under the same name, so a reader finds the PostgreSQL twin of a SQLite repository by its name.
 */
const DIALECT_ONLY: Record<"sqlite" | "postgres", readonly string[]> = {
  sqlite: [
    // Copying and checking the database file (the CLI's backup/restore); PostgreSQL has its own tools.
    "backup.ts",
    // The booking writer thread: one writer connection serving the file from a worker.
    "booking-writer.ts",
    "booking-writer-thread.ts",
    // WAL checkpoints on a worker thread.
    "checkpointer.ts",
    "checkpoint-thread.ts",
    // Bun's text imports of the embedded .sql files (the types only).
    "sql-text.d.ts",
    // IN lists padded to a few sizes, so each size is one prepared statement; PostgreSQL binds one array (= ANY).
    "in-list.ts",
  ],
  postgres: [
    // Group commit over many connections, and the one-statement insert of a new booking it runs.
    "booking-groups.ts",
    "booking-insert.ts",
    // Copies a SQLite database into PostgreSQL.
    "import-sqlite.ts",
    // LISTEN/NOTIFY with a poll beneath it (the account cache, the fleet feed).
    "listen.ts",
    // What several instances share, that one SQLite process keeps in memory: rate budgets and open event streams.
    "rate-budgets.ts",
    "stream-registry.ts",
  ],
};

const listing = (dialect: "sqlite" | "postgres") => readdirSync(join(ROOT, "adapters", dialect)).filter((name) => !DIALECT_ONLY[dialect].includes(name)).sort();

describe("the two database folders", () => {
  test("list the same file names, apart from the files only one database has", () => {
    expect(listing("postgres")).toEqual(listing("sqlite"));
  });

  test("every file said to be one database's own is there (the list is kept up to date)", () => {
    for (const dialect of ["sqlite", "postgres"] as const) {
      const names = readdirSync(join(ROOT, "adapters", dialect));
      expect(DIALECT_ONLY[dialect].filter((name) => !names.includes(name))).toEqual([]);
    }
  });
});
