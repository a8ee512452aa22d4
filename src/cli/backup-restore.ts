import type { Config } from "../config";
import { openDatabase } from "../../adapters/sqlite/db";
import { backupTo, restoreFrom } from "../../adapters/sqlite/backup";
import { UsageError } from "./usage";

/** backup <file> and restore <file>: a copy of the SQLite database file (PostgreSQL has pg_dump and pg_restore). */
export function sqliteFileCommand(command: "backup" | "restore", args: string[], config: Config): number {
  if (args.length !== 1) throw new UsageError(`usage: ${command} <file>`);
  if (config.databaseUrl) {
    const tool = command === "backup" ? "pg_dump" : "pg_restore";
    console.error(`${command}: the database is PostgreSQL (DATABASE_URL): use ${tool} (see docs/deployment.md, Backups)`);
    return 2;
  }
  const db = command === "backup" ? openDatabase(config.dbPath) : undefined;
  try {
    if (db) backupTo(db, args[0]);
    else restoreFrom(args[0], config.dbPath);
  } catch (error) {
    console.error(`${command} failed: ${error instanceof Error ? error.message : error}`);
    return 1;
  } finally {
    db?.$client.close();
  }
  console.log(db ? `backed up ${config.dbPath} to ${args[0]}` : `restored ${config.dbPath} from ${args[0]}`);
  return 0;
}
