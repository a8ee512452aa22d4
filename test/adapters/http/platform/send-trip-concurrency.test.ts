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
