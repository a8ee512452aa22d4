import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness, databaseEnv } from "../../../support/harness";
import { postJson, startServer, tempDir } from "../../../support/process";
import { parties, regularTrip } from "../../../support/trips";
import { startBookingWriter } from "../../../../src/services";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("Idempotency-Key under concurrency", () => {
  test("simultaneous requests with one key run the change once; the others are 409 IDEMPOTENCY_IN_PROGRESS or a replay", async () => {
    // A database file with the booking writer, as `serve` runs: each change waits for its commit on another thread.
    const h = createHarness({ dbPath: join(tempDir(), "db.sqlite") });
    const writer = await startBookingWriter(h.services, () => {});
    cleanups.push(async () => {
      await h.services.trips.send.bookings.drain();
      await writer?.stop();
      h.close();
    });
    const { requester, provider } = await parties(h);
    const body = regularTrip(requester.netid, provider.netid, { luggageCount: "0" });
    const sent = await h.request("POST", "/Platform.svc/sendTrip/V1", { body, headers: { token: requester.token } });
    expect(sent.status).toBe(200);
    const update = { ...body, luggageCount: "5", affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } };
    const key = { token: requester.token, "Idempotency-Key": crypto.randomUUID() };

    const answers = await Promise.all(Array.from({ length: 8 }, () => h.request("POST", "/Platform.svc/sendTrip/V1", { body: update, headers: key })));
    const ran = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
    const inProgress = answers.filter((a) => a.status === 409);
    const replayed = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === "true");
    expect(ran).toHaveLength(1);
    expect(inProgress.length).toBeGreaterThanOrEqual(1);
    expect(inProgress.length + replayed.length).toBe(7);
    for (const a of inProgress) expect(a.body).toMatchObject({ success: false, code: "IDEMPOTENCY_IN_PROGRESS" });

    // Once the first has finished, the key replays its answer; another body with the key is still refused.
    const again = await h.request("POST", "/Platform.svc/sendTrip/V1", { body: update, headers: key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(ran[0].text);
    expect((await h.request("POST", "/Platform.svc/sendTrip/V1", { body: { ...update, luggageCount: "6" }, headers: key })).body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const stored = await h.request("GET", `/api/reservation/${sent.body.transactionId}`, { headers: { authorization: `Bearer ${provider.jwt}` } });
    const changes = stored.body.data.tripPacket.changeLogs.filter((c: { changeDesc: string }) => c.changeDesc.startsWith("luggageCount"));
    expect(changes.map((c: { changeDesc: string }) => c.changeDesc)).toEqual(["luggageCount 0 → 5"]);
  });

  test("a reservation left by a request that failed unexpectedly frees the key for the retry", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const store = h.services.trips.idempotency;
    expect(await store.reserve("ACME", "k-1", "hash", 1000)).toEqual({ kind: "reserved" });
    expect(await store.reserve("ACME", "k-1", "hash", 1001)).toEqual({ kind: "in-progress", requestHash: "hash" });
    await store.release("ACME", "k-1");
    expect(await store.reserve("ACME", "k-1", "hash", 1002)).toEqual({ kind: "reserved" });
    // A process that died holding a key: after the lease (120 s) the next request takes it over.
    expect(await store.reserve("ACME", "k-1", "hash", 1002 + 121)).toEqual({ kind: "reserved" });
  });

  test("over real sockets against serve: two simultaneous requests with one key make one change", async () => {
    const server = await startServer({ ...databaseEnv(join(tempDir(), "db.sqlite")), DEMO_DATA: "0" });
    try {
      const password = "correct horse battery staple";
      for (const [netid, coType, phone] of [["IDEM-REQ", "CO", "+12125550186"], ["IDEM-OPS", "IO", "+12125550187"]])
        expect((await postJson(`${server.base}/api/company/register`, { name: netid, netid, mainEmail: `${netid.toLowerCase()}@idem.example`, password, confirmPassword: password, mainPhone: phone, coType })).status).toBe(200);
      const token = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "IDEM-REQ", pw: password })).body as string;
      const body = regularTrip("IDEM-REQ", "IDEM-OPS", { luggageCount: "0" });
      const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, body, { token });
      expect(sent.status).toBe(200);
      const update = { ...body, luggageCount: "7", affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } };
      const headers = { token, "idempotency-key": crypto.randomUUID() };
      const answers = await Promise.all([0, 1].map(() => postJson(`${server.base}/Platform.svc/sendTrip/V1`, update, headers)));
      const ran = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
      expect(ran).toHaveLength(1);
      for (const a of answers.filter((x) => x !== ran[0])) expect(a.status === 409 ? a.body.code : a.headers.get("idempotent-replayed")).toBeOneOf(["IDEMPOTENCY_IN_PROGRESS", "true"]);
      const got = await fetch(`${server.base}/Platform.svc/getReservationByTransactionId/${sent.body.transactionId}/V1`, { headers: { token } });
      const logs = ((await got.json()) as { data: { tripPacket: { changeLogs: Array<{ changeDesc: string }> } } }).data.tripPacket.changeLogs;
      expect(logs.filter((c) => c.changeDesc.startsWith("luggageCount")).map((c) => c.changeDesc)).toEqual(["luggageCount 0 → 7"]);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
