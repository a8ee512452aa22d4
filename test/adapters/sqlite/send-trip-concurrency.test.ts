import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { createHarness } from "../../support/harness";
import { parties, regularTrip } from "../../support/trips";
import { bookings } from "../../../adapters/sqlite/schema";
import { startBookingWriter } from "../../../src/services";
import { BookingWriter } from "../../../adapters/sqlite/booking-writer";
import { BOOKING_WRITER_STATEMENTS } from "../../../adapters/sqlite/booking-rows";

// A real database file (WAL, synchronous=FULL), as in production.
const dir = mkdtempSync(join(tmpdir(), "tripswitch-concurrency-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Both write paths: group commits on the service's own connection (an in-memory database, or when the
// booking writer cannot start), and on the booking writer worker (what `serve` uses on a database file).
for (const path of ["own connection", "booking writer"] as const) {
let files = 0;
/** A harness on a fresh database file, with the booking writer attached when this pass tests it. */
async function harness(name: string) {
  const h = createHarness({ dbPath: join(dir, `${name}-${path.replace(" ", "-")}-${files++}.sqlite`) });
  let writer: BookingWriter | undefined;
  if (path === "booking writer") {
    writer = await startBookingWriter(h.services, (message) => {
      throw new Error(message);
    });
    expect(writer).toBeDefined();
  }
  return {
    ...h,
    dbPath: h.db.$client.filename,
    close: async () => {
      await h.services.trips.send.bookings.drain();
      await writer?.stop();
      await h.close();
    },
  };
}

// The own connection's pass of this one is in test/adapters/http/platform/send-trip-concurrency.test.ts (both databases).
if (path === "booking writer")
describe(`sendTrip under concurrency (${path})`, () => {
  test("200 simultaneous identical NEW requests create exactly one booking and all answer its transactionId", async () => {
    const h = await harness("db");
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
    await h.close();
  });
});

describe(`sendTrip group commit (${path})`, () => {
  test("concurrent trips share commits; each answer comes after its booking is durable, and a conflicting request fails alone", async () => {
    const h = await harness("group");
    const { requester, provider } = await parties(h, "-G");
    const taken = regularTrip(requester.netid, provider.netid);
    const first = await h.request("POST", "/Platform.svc/sendTrip/V1", { body: taken, headers: { token: requester.token } });
    expect(first.status).toBe(200);
    // Another connection sees only what is committed.
    const observer = new Database(h.dbPath, { readonly: true });
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
    await h.close();
  });

  test("simultaneous UPDATEs of one booking, named both ways, are all applied one after another; none is lost", async () => {
    const h = await harness("updates");
    const { requester, provider } = await parties(h, "-U");
    const body = regularTrip(requester.netid, provider.netid, { luggageCount: "0" });
    const sent = await h.request<any>("POST", "/Platform.svc/sendTrip/V1", { body, headers: { token: requester.token } });
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    // The service's own connection sees another connection's commits as data_version changes: the writer's do.
    const dataVersion = () => h.db.$client.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;
    const before = dataVersion();
    const updates = Array.from({ length: 30 }, (_, i) =>
      i % 2 === 0
        ? { luggageCount: String(i + 1), affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } }
        : { luggageCount: String(i + 1), transactionId: id, affiliateReservation: { requesterId: requester.netid, action: "UPDATE" } },
    );
    const answers = await Promise.all(updates.map((u) => h.request<any>("POST", "/Platform.svc/sendTrip/V1", { body: u, headers: { token: requester.token } })));
    expect(answers.map((a) => a.status)).toEqual(updates.map(() => 200));
    expect(new Set(answers.map((a) => a.body.transactionId))).toEqual(new Set([id]));
    if (path === "booking writer") expect(dataVersion()).not.toBe(before);
    else expect(dataVersion()).toBe(before);
    const got = await h.request<any>("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${provider.jwt}` } });
    const changes: string[] = got.body.data.tripPacket.changeLogs.map((c: any) => c.changeDesc).filter((d: string) => d.startsWith("luggageCount"));
    // Each UPDATE was decided on the booking as the one before left it: 30 changes, each from the previous value.
    expect(changes).toHaveLength(30);
    const last = Number(/→ (\d+)$/.exec(changes.at(-1)!)![1]);
    expect(got.body.data.tripPacket.luggageCount).toBe(String(last));
    let value = "0";
    for (const change of changes) {
      const [from, to] = change.replace("luggageCount ", "").split(" → ");
      expect(from).toBe(value);
      value = to;
    }
    await h.close();
  });
});
}

describe("sendTrip when the booking writer dies", () => {
  test("the changes it held fail with 500 and nothing written; repeated, they commit on the service's own connection", async () => {
    const h = createHarness({ dbPath: join(dir, "writer-dies.sqlite") });
    const { requester, provider } = await parties(h, "-D");
    const workerUrl = new URL("../../support/workers/crashing-writer.worker.ts", import.meta.url).href;
    const writer = (await BookingWriter.start(h.db.$client.filename, BOOKING_WRITER_STATEMENTS, { workerUrl }))!;
    expect(writer).toBeDefined();
    h.storage.bookings.useWriter(writer);
    const body = regularTrip(requester.netid, provider.netid);
    const stored = () => h.db.select({ n: count() }).from(bookings).where(eq(bookings.requesterId, requester.netid)).get()!.n;

    const lost = await h.request<any>("POST", "/Platform.svc/sendTrip/V1", { body, headers: { token: requester.token } });
    expect(lost.status).toBe(500);
    expect(stored()).toBe(0);
    const repeated = await h.request<any>("POST", "/Platform.svc/sendTrip/V1", { body, headers: { token: requester.token } });
    expect(repeated.status).toBe(200);
    expect(stored()).toBe(1);
    await h.close();
  });
});
