import { existsSync, statSync } from "node:fs";
import { SingleBar, Presets } from "cli-progress";
import type { Config } from "../config";
import { migrate, openPostgres } from "../../adapters/postgres/db";
import { SqliteImportError, importSqlite } from "../../adapters/postgres/import-sqlite";
import { UsageError } from "./usage";

/** `import-sqlite <file.sqlite>`, its argument checked. */
export async function runImportSqlite(config: Config, args: string[]): Promise<number> {
  if (args.length !== 1 || args[0].startsWith("-")) throw new UsageError("usage: import-sqlite <file.sqlite>");
  return importSqliteCommand(config, args[0]);
}

/**
 * `import-sqlite <file.sqlite>`: migrates the PostgreSQL database at DATABASE_URL, then copies every table of the
 * SQLite file into it in one transaction, and prints the rows copied per table. Exit 0 imported, 1 refused or
 * failed (nothing imported), 2 for a missing DATABASE_URL or file (bad argument).
 */
export async function importSqliteCommand(config: Config, file: string): Promise<number> {
  if (!config.databaseUrl) {
    console.error("import-sqlite: DATABASE_URL is not set: point it at the PostgreSQL database to import into (postgres://user:password@host:5432/database)");
    return 2;
  }
  if (!existsSync(file) || !statSync(file).isFile()) {
    console.error(`import-sqlite: no such file: ${file}`);
    return 2;
  }
  const hide = secretHider(config.databaseUrl);
  const db = openPostgres(config.databaseUrl, { max: 2 });
  const barFormat = { format: "{table} [{bar}] {value}/{total} rows", hideCursor: true, stream: process.stderr };
  const bar = process.stderr.isTTY ? new SingleBar(barFormat, Presets.shades_classic) : undefined;
  try {
    let applied: string[];
    try {
      applied = await migrate(db.$client);
    } catch (error) {
      console.error(`import-sqlite: cannot migrate the PostgreSQL database: ${hide(error)}`);
      return 1;
    }
    if (applied.length) process.stderr.write(`PostgreSQL migrated: ${applied.join(", ")}\n`);
    let started = false;
    const report = await importSqlite(file, db, (p) => {
      if (!bar) return;
      if (!started) {
        bar.start(p.total, 0, { table: p.table.padEnd(22) });
        started = true;
      }
      bar.update(p.done, { table: p.table.padEnd(22) });
    });
    bar?.stop();
    for (const { table, rows } of report.tables) console.log(`${table.padEnd(22)} ${rows}`);
    const total = report.tables.reduce((sum, t) => sum + t.rows, 0);
    console.log(
      `imported ${total} rows from ${file}; delivery passwords and webhook secrets stay sealed: ` +
        "run every instance with the SECRETS_KEY this file was used with",
    );
    return 0;
  } catch (error) {
    bar?.stop();
    if (error instanceof SqliteImportError) {
      console.error(`import-sqlite: ${hide(error)}`);
      return 1;
    }
    throw new Error(hide(error));
  } finally {
    await db.$client.close();
  }
}

/** An error's message with the URL's password (if any) blanked out. */
function secretHider(url: string): (error: unknown) => string {
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {}
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    return password ? message.replaceAll(password, "***") : message;
  };
}
