import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness } from "../support/harness";
import { tempDir } from "../support/process";
import { lookup, parties, regularTrip, sendTrip } from "../support/trips";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("when storage is full or busy", () => {
  test("a full database answers 503 STORAGE_FULL with Retry-After, keeps serving reads, and loses no acknowledged trip", async () => {
    const h = createHarness({ dbPath: join(tempDir(), "db.sqlite") });
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h);
    const sqlite = h.db.$client;
    const acknowledged: string[] = [];
    // SQLite's own SQLITE_FULL: the file may not grow past a few pages more than it has now (room for some trips,
    // each with its live events, before it is full).
    const pages = sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages + 16}`);
    let full: Awaited<ReturnType<typeof sendTrip>> | undefined;
    for (let i = 0; i < 2000 && !full; i++) {
      const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { specialInstructions: "x".repeat(2000) }));
      if (res.status === 200) acknowledged.push(res.body.transactionId);
      else full = res;
    }
    expect(full?.status).toBe(503);
    expect(full?.body).toMatchObject({ success: false, code: "STORAGE_FULL" });
    expect(full?.headers.get("retry-after")).toBe("30");
    expect(full?.text).not.toContain("SQLITE");
    // Still serving: health, logins and reads answer while nothing can be written.
    expect((await h.request("GET", "/healthz")).status).toBe(200);
    expect((await lookup(h, requester, acknowledged[0])).status).toBe(200);
    const refusedAgain = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(refusedAgain.status).toBe(503);

    // Room again: writes resume, and every trip that was answered 200 is there.
    sqlite.exec("PRAGMA max_page_count = 1073741823");
    expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).status).toBe(200);
    for (const id of acknowledged) expect((await lookup(h, requester, id)).status).toBe(200);
    expect(acknowledged.length).toBeGreaterThan(0);
  });

  test("a database locked by another process past the busy timeout answers 503 DATABASE_BUSY with Retry-After", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const h = createHarness({ dbPath });
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h);
    h.db.$client.exec("PRAGMA busy_timeout = 200");
    const other = new Database(dbPath);
    cleanups.push(() => other.close());
    other.exec("BEGIN IMMEDIATE");
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    other.exec("ROLLBACK");
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: "DATABASE_BUSY" });
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).status).toBe(200);
  });
});
