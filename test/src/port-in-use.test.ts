// docs/deployment.md#several-processes-on-one-port "Starting twice": a second service on a port already taken exits 1 saying "port N is in use"
// instead of sharing it (Elysia's Bun adapter listens with SO_REUSEPORT by default, which split the traffic between
// two databases). Several processes on one port only with REUSE_PORT=1, on PostgreSQL; refused at start on SQLite.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { runCli, startServer, tempDir, type RunningServer } from "../support/process";

const started: RunningServer[] = [];
let cluster: TestDatabase | undefined;
afterAll(async () => {
  for (const s of started) await s.stop();
  await cluster?.stop();
});

const sqliteEnv = (dir: string) => ({ DB_PATH: join(dir, "db.sqlite"), JWT_SECRET: "port-in-use-secret-at-least-32-bytes!!", DEMO_DATA: "0" });

describe("starting twice on one port", () => {
  test("a second serve on the port the first holds exits 1 with 'port N is in use'; the first keeps serving alone", async () => {
    const first = await startServer(sqliteEnv(tempDir()));
    started.push(first);
    const otherDir = tempDir();
    const second = await runCli(["serve"], { ...sqliteEnv(otherDir), PORT: String(first.port), HOST: "127.0.0.1" }, { timeoutMs: 30_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`port ${first.port} is in use`);
    // Nothing was opened: the second database was never created.
    expect(existsSync(join(otherDir, "db.sqlite"))).toBe(false);
    // Every request still reaches the first.
    for (let i = 0; i < 20; i++) expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
  }, 60_000);

  test("the platform port is checked too", async () => {
    const first = started[0];
    const second = await runCli(["serve"], { ...sqliteEnv(tempDir()), PORT: "0", PLATFORM_PORT: String(first.port), HOST: "127.0.0.1" }, { timeoutMs: 30_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`port ${first.port} is in use`);
  }, 60_000);

  test("REUSE_PORT=1 on SQLite is refused at start (exit 2, the variable named)", async () => {
    const dir = tempDir();
    const refused = await runCli(["serve"], { ...sqliteEnv(dir), REUSE_PORT: "1" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("REUSE_PORT=1 needs DATABASE_URL");
    expect(existsSync(join(dir, "db.sqlite"))).toBe(false);
  });

  test("REUSE_PORT=1 on PostgreSQL: two processes share one port and one database", async () => {
    cluster = await startDatabase();
    const env = { DATABASE_URL: cluster.url, JWT_SECRET: "port-in-use-secret-at-least-32-bytes!!", SECRETS_KEY: "3c".repeat(32), DEMO_DATA: "0", REUSE_PORT: "1", DB_PATH: join(tempDir(), "db.sqlite") };
    const a = await startServer(env, { timeoutMs: 60_000 });
    started.push(a);
    const b = await startServer({ ...env, PORT: String(a.port) }, { timeoutMs: 60_000 });
    started.push(b);
    expect(b.port).toBe(a.port);
    // Without REUSE_PORT a third is refused even on PostgreSQL.
    const third = await runCli(["serve"], { ...env, REUSE_PORT: "0", PORT: String(a.port), HOST: "127.0.0.1" }, { timeoutMs: 30_000 });
    expect(third.code).toBe(1);
    expect(third.stderr).toContain(`port ${a.port} is in use`);
  }, 180_000);
});
