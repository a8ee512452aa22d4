import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../../adapters/sqlite/db";
import { BackgroundCheckpointer } from "../../../adapters/sqlite/checkpointer";
import { tempDir } from "../../support/process";

/** A database file with a table, in WAL mode; ~2 MB is then written to it in many small commits. */
function fileDb() {
  const path = join(tempDir("tripswitch-ckpt-"), "db.sqlite");
  const db = openDatabase(path);
  db.$client.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  return { path, sqlite: db.$client };
}

function writeTwoMegabytes(sqlite: ReturnType<typeof fileDb>["sqlite"]): void {
  const insert = sqlite.query("INSERT INTO blobs (body) VALUES (?)");
  const body = new Uint8Array(4096).fill(7);
  for (let i = 0; i < 512; i++) insert.run(body);
}

const autoCheckpoint = (sqlite: ReturnType<typeof fileDb>["sqlite"]) =>
  sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint;

/** Polls (bounded) until the database file itself, not just its WAL, holds at least `bytes`. */
async function fileGrowsTo(path: string, bytes: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  while (statSync(path).size < bytes && Date.now() < deadline) await Bun.sleep(20);
  return statSync(path).size;
}

describe("background WAL checkpoints", () => {
  test("commits no longer checkpoint on the connection; the worker copies the WAL into the file", async () => {
    const { path, sqlite } = fileDb();
    const checkpointer = await BackgroundCheckpointer.start(sqlite, { intervalMs: 50 });
    try {
      expect(checkpointer.running).toBe(true);
      expect(autoCheckpoint(sqlite)).toBe(0);
      writeTwoMegabytes(sqlite);
      // The connection does not checkpoint (see the control below): only the worker can grow the file.
      expect(await fileGrowsTo(path, 2 * 1024 * 1024, 5_000)).toBeGreaterThanOrEqual(2 * 1024 * 1024);
      expect(sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM blobs").get()?.n).toBe(512);
    } finally {
      await checkpointer.stop();
    }
    expect(checkpointer.running).toBe(false);
    expect(autoCheckpoint(sqlite)).toBe(1000);
    sqlite.close();
  });

  test("without the worker nothing reaches the file until the connection checkpoints (the control)", async () => {
    const { path, sqlite } = fileDb();
    sqlite.exec("PRAGMA wal_autocheckpoint = 0");
    writeTwoMegabytes(sqlite);
    expect(await fileGrowsTo(path, 2 * 1024 * 1024, 300)).toBeLessThan(2 * 1024 * 1024);
    sqlite.close();
  });

  test("a worker that cannot start leaves the connection checkpointing itself, and says so", async () => {
    const { sqlite } = fileDb();
    const problems: string[] = [];
    const checkpointer = await BackgroundCheckpointer.start(sqlite, { workerUrl: join(tempDir("tripswitch-ckpt-"), "missing.worker.ts"), onProblem: (m) => problems.push(m) });
    expect(checkpointer.running).toBe(false);
    expect(autoCheckpoint(sqlite)).toBe(1000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("background checkpoints unavailable");
    await checkpointer.stop();
    sqlite.close();
  });

  test("a worker that dies after starting gives the connection its automatic checkpoints back, and says so", async () => {
    const { sqlite } = fileDb();
    const problems: string[] = [];
    const workerUrl = new URL("../../support/workers/crashing-checkpoint.worker.ts", import.meta.url).href;
    const checkpointer = await BackgroundCheckpointer.start(sqlite, { workerUrl, onProblem: (m) => problems.push(m) });
    // The service's booking writer listens here, to turn its own automatic checkpoints back on.
    let lost = 0;
    checkpointer.onWorkerLost(() => lost++);
    expect(checkpointer.running).toBe(true);
    expect(autoCheckpoint(sqlite)).toBe(0);
    const deadline = Date.now() + 5_000;
    while (checkpointer.running && Date.now() < deadline) await Bun.sleep(10);
    expect(checkpointer.running).toBe(false);
    expect(autoCheckpoint(sqlite)).toBe(1000);
    expect(lost).toBe(1);
    expect(problems).toEqual([expect.stringContaining("the connection checkpoints itself")]);
    sqlite.close();
  });

  test("an in-memory database has no WAL: nothing is started", async () => {
    const sqlite = openDatabase(":memory:").$client;
    const checkpointer = await BackgroundCheckpointer.start(sqlite);
    expect(checkpointer.running).toBe(false);
    sqlite.close();
  });
});
