import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness } from "../../../support/harness";
import { parties, regularTrip } from "../../../support/trips";

// A real database file (WAL, synchronous=FULL), as in production; on the PostgreSQL run, a database of its own.
// Changes commit on the service's own connection; the booking writer's pass is in test/adapters/sqlite/.
const dir = mkdtempSync(join(tmpdir(), "tripswitch-concurrency-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("sendTrip under concurrency (own connection)", () => {
  test("200 simultaneous identical NEW requests create exactly one booking and all answer its transactionId", async () => {
    const h = createHarness({ dbPath: join(dir, "db-own-connection.sqlite") });
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
    const [{ n: rows }] = await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM bookings WHERE requester_id = ?", requester.netid);
    expect(Number(rows)).toBe(1);
    const [id] = ids;
    expect((await h.rows<{ transaction_id: string }>("SELECT transaction_id FROM bookings"))[0].transaction_id).toBe(id);
    await h.services.trips.send.bookings.drain();
    await h.close();
  });
});
