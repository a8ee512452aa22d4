import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { createHarness } from "../../../support/harness";
import { parties, regularTrip } from "../../../support/trips";
import { bookings } from "../../../../adapters/sqlite/schema";

// A real database file (WAL, synchronous=FULL), as in production.
const dir = mkdtempSync(join(tmpdir(), "tripswitch-concurrency-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("sendTrip under concurrency", () => {
  test("200 simultaneous identical NEW requests create exactly one booking and all answer its transactionId", async () => {
    const h = createHarness({ dbPath: join(dir, "db.sqlite") });
    const { requester, provider } = await parties(h, "-C");
    const body = JSON.stringify(regularTrip(requester.netid, provider.netid));

    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        h.app.handle(new Request("http://localhost/Platform.svc/sendTrip/V1", { method: "POST", headers: { "content-type": "application/json", token: requester.token }, body })),
      ),
    );
    const answers = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })));

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const ids = new Set(answers.map((a) => a.body.transactionId));
    expect(ids.size).toBe(1);
    const rows = h.db.select({ n: count() }).from(bookings).where(eq(bookings.requesterId, requester.netid)).get()!.n;
    expect(rows).toBe(1);
    const [id] = ids;
    expect(h.db.select({ id: bookings.transactionId }).from(bookings).get()!.id).toBe(id);
    h.close();
  });
});

describe("sendTrip group commit", () => {
  test("concurrent trips share commits; each answer comes after its booking is durable, and a conflicting request fails alone", async () => {
    const path = join(dir, "group.sqlite");
    const h = createHarness({ dbPath: path });
    const { requester, provider } = await parties(h, "-G");
    const taken = regularTrip(requester.netid, provider.netid);
    const first = await h.request("POST", "/Platform.svc/sendTrip/V1", { body: taken, headers: { token: requester.token } });
    expect(first.status).toBe(200);
    // Another connection sees only what is committed.
    const observer = new Database(path, { readonly: true });
    const committed = observer.query<{ n: number }, [string]>("SELECT count(*) AS n FROM bookings WHERE transaction_id = ?");
    const conflicting = { ...taken, passengerCount: "7" };
    const bodies = Array.from({ length: 120 }, (_, i) => (i % 10 === 5 ? conflicting : regularTrip(requester.netid, provider.netid)));

    const answers = await Promise.all(
      bodies.map((body) =>
        h.app
          .handle(new Request("http://localhost/Platform.svc/sendTrip/V1", { method: "POST", headers: { "content-type": "application/json", token: requester.token }, body: JSON.stringify(body) }))
          .then(async (r) => {
            const answer = { status: r.status, body: await r.json() };
            // Checked the moment the answer exists: an acknowledged booking is already committed.
            const durable = answer.status === 200 ? committed.get(answer.body.transactionId)!.n : undefined;
            return { ...answer, durable };
          }),
      ),
    );

    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(108);
    expect(ok.every((a) => a.durable === 1)).toBe(true);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(12);
    const rows = observer.query<{ n: number }, [string]>("SELECT count(*) AS n FROM bookings WHERE requester_id = ?").get(requester.netid)!.n;
    expect(rows).toBe(109);
    observer.close();
    h.close();
  });
});
