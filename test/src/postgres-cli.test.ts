// The command line with DATABASE_URL set: migrate runs the PostgreSQL migrations (once), the service's commands work
// on PostgreSQL, and the SQLite-file commands (backup, restore) point to PostgreSQL's own tools instead.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { SQL } from "bun";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { runCli, tempDir } from "../support/process";

let cluster: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startDatabase();
  env = { DATABASE_URL: cluster.url, JWT_SECRET: "postgres-cli-secret-at-least-32-bytes!!", DB_PATH: join(tempDir("tripswitch-pgcli-"), "unused.sqlite") };
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("the command line on PostgreSQL", () => {
  test("migrate applies the embedded migrations once, then finds the database up to date; no SQLite file is made", async () => {
    const first = await runCli(["migrate"], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^applied 0000_schema, 0001_stamp_triggers/);
    const again = await runCli(["migrate"], env);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe("database is up to date");
    const sql = new SQL(cluster.url, { max: 1 });
    try {
      expect((await sql`SELECT count(*)::int AS n FROM __migrations`)[0].n).toBeGreaterThanOrEqual(4);
    } finally {
      await sql.close();
    }
    expect(existsSync(env.DB_PATH)).toBe(false);
  }, 60_000);

  test("seed-demo and company set-plan write to PostgreSQL; user remove finds the user there", async () => {
    expect((await runCli(["seed-demo"], env)).code).toBe(0);
    const plan = await runCli(["company", "set-plan", "ACME-LIMO", "ENTERPRISE"], env);
    expect(plan.code).toBe(0);
    const sql = new SQL(cluster.url, { max: 1 });
    try {
      expect((await sql`SELECT plan FROM companies WHERE netid = 'ACME-LIMO'`)[0].plan).toBe("ENTERPRISE");
    } finally {
      await sql.close();
    }
    expect((await runCli(["user", "remove", "no-such-user"], env)).code).toBe(1);
  }, 60_000);

  test("backup and restore refuse with exit 2 and name pg_dump / pg_restore", async () => {
    const backup = await runCli(["backup", join(tempDir("tripswitch-pgcli-"), "b.sqlite")], env);
    expect(backup.code).toBe(2);
    expect(backup.stderr).toContain("pg_dump");
    const restore = await runCli(["restore", join(tempDir("tripswitch-pgcli-"), "b.sqlite")], env);
    expect(restore.code).toBe(2);
    expect(restore.stderr).toContain("pg_restore");
    expect(`${backup.stderr}${restore.stderr}`).not.toContain(new URL(cluster.url).password);
  }, 60_000);
});
