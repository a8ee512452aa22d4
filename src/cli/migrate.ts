import type { Config } from "../config";
import { migrate, openDatabase } from "../../adapters/sqlite/db";
import { migrate as migratePostgres, openPostgres } from "../../adapters/postgres/db";
import { UsageError } from "./usage";

/** `migrate`: apply database migrations and exit. */
export async function runMigrate(config: Config, args: string[]): Promise<number> {
  if (args.length) throw new UsageError("migrate takes no arguments");
  if (config.databaseUrl) {
    // Under the advisory lock every instance takes: safe while instances start.
    const pg = openPostgres(config.databaseUrl, { max: 1 });
    try {
      const applied = await migratePostgres(pg.$client);
      console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
    } finally {
      await pg.$client.close();
    }
    return 0;
  }
  const db = openDatabase(config.dbPath);
  const applied = migrate(db);
  console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
  db.$client.close();
  return 0;
}
