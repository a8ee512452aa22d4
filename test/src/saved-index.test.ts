import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { postJson, startServer, tempDir } from "../support/process";
import { DEMO_LOGIN } from "../../src/demo/seed";

// The service saves its fleet index beside the database when it stops, and a restart loads it instead of
// building it; after fleet changes by any process it loads it too and re-reads the changed entries, as long as
// the database's change log covers every change since the save.

async function searchJfk(base: string): Promise<{ total: number; slugs: string[] }> {
  const token = await postJson(`${base}/api/token`, DEMO_LOGIN);
  expect(token.status).toBe(200);
  const res = await fetch(`${base}/api/search/fleet?airports=JFK&radius_km=100&limit=100`, { headers: { authorization: `Bearer ${token.body.token}` } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { total: number; items: Array<{ slug: string }> } };
  return { total: body.data.total, slugs: body.data.items.map((i) => i.slug) };
}

/** The "fleet index ready" log line, once stdout has it (info lines reach stdout within 200 ms, in batches). */
async function indexLine(server: { stdout(): string }): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const line = server.stdout().split("\n").find((l) => l.includes('"fleet index ready"'));
    if (line !== undefined || Date.now() > deadline) return line ?? "";
    await Bun.sleep(20);
  }
}

describe("saved fleet index across restarts", () => {
  test("a restart loads the index the last stop saved; after changes by another process it loads it too and re-reads just those entries", async () => {
    const dbPath = join(tempDir("tripswitch-restart-"), "db.sqlite");
    const env = { DB_PATH: dbPath, LOG_LEVEL: "info" };

    const seeded = await startServer({ ...env, DEMO_DATA: "1" }, { captureStdout: true });
    let before: { total: number; slugs: string[] };
    try {
      before = await searchJfk(seeded.base);
      expect(before.total).toBeGreaterThan(2);
    } finally {
      expect(await seeded.stop()).toBe(0);
    }
    expect(existsSync(`${dbPath}.fleet-index`)).toBe(true);

    const restarted = await startServer({ ...env, DEMO_DATA: "0" }, { captureStdout: true });
    try {
      expect(await searchJfk(restarted.base)).toEqual(before);
      expect(await indexLine(restarted)).toContain("saved index file");
      expect(await indexLine(restarted)).toContain('"changedSinceSaved":0');
    } finally {
      expect(await restarted.stop()).toBe(0);
    }

    // Another process, while the service is down, takes the nearest vehicle out of service and moves the
    // farthest one onto the airport.
    const farthest = before.slugs[before.slugs.length - 1];
    const other = new Database(dbPath);
    other.exec("PRAGMA busy_timeout = 5000");
    other.query("UPDATE fleet_entries SET active = 0 WHERE slug = ?").run(before.slugs[0]);
    other.query("UPDATE fleet_entries SET lat = 40.6413, lon = -73.7781 WHERE slug = ?").run(farthest);
    other.close();

    const again = await startServer({ ...env, DEMO_DATA: "0" }, { captureStdout: true });
    try {
      const after = await searchJfk(again.base);
      expect(after.total).toBe(before.total - 1);
      expect(after.slugs).not.toContain(before.slugs[0]);
      expect(after.slugs[0]).toBe(farthest);
      expect(await indexLine(again)).toContain("saved index file");
      expect(await indexLine(again)).toContain('"changedSinceSaved":2');
    } finally {
      expect(await again.stop()).toBe(0);
    }

    // A change the log does not cover (as after a mass import past its limit): the restart builds instead.
    const third = new Database(dbPath);
    third.exec("PRAGMA busy_timeout = 5000");
    third.exec("UPDATE fleet_generation SET log_base = -1 WHERE id = 1");
    third.query("UPDATE fleet_entries SET active = 1 WHERE slug = ?").run(before.slugs[0]);
    third.close();

    const rebuilt = await startServer({ ...env, DEMO_DATA: "0" }, { captureStdout: true });
    try {
      const after = await searchJfk(rebuilt.base);
      expect(after.total).toBe(before.total);
      expect(after.slugs).toContain(before.slugs[0]);
      expect(await indexLine(rebuilt)).toContain('"from":"database"');
    } finally {
      expect(await rebuilt.stop()).toBe(0);
    }
  });
});
