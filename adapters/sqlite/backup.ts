import { Database } from "bun:sqlite";
import { chmodSync, existsSync, renameSync, rmSync, copyFileSync, writeFileSync } from "node:fs";
import { dirname, join, basename } from "node:path";
import { mkdirSync } from "node:fs";
import type { Db } from "./db";

/**
 * A consistent online backup: `VACUUM INTO` reads one snapshot of the database (WAL readers don't block
 * writers), so the service can keep running. Refuses to overwrite an existing file.
 */
export function backupTo(db: Db, file: string): void {
  if (existsSync(file)) throw new Error(`${file} exists already; choose a new file`);
  mkdirSync(dirname(file), { recursive: true });
  // Created empty and owner-only first (VACUUM INTO accepts an empty file), so the copy is never readable by others.
  writeFileSync(file, "", { mode: 0o600 });
  chmodSync(file, 0o600);
  try {
    db.$client.query("VACUUM INTO ?").run(file);
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
}

/** Runs SQLite's integrity check on a database file; returns the problems found (empty when ok). */
export function integrityProblems(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    return rows.map((r) => r.integrity_check).filter((r) => r !== "ok");
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `target` with a backup, after checking the backup's integrity. The service must
 * be stopped. The swap is a rename, so a crash leaves either the old or the new database, never a mix.
 */
export function restoreFrom(file: string, target: string): void {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  const problems = integrityProblems(file);
  if (problems.length) throw new Error(`${file} fails the integrity check: ${problems.slice(0, 3).join("; ")}`);
  mkdirSync(dirname(target), { recursive: true });
  const staging = join(dirname(target), `.${basename(target)}.restoring`);
  copyFileSync(file, staging);
  chmodSync(staging, 0o600);
  for (const suffix of ["-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
  renameSync(staging, target);
}
