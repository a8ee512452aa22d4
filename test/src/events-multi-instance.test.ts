// Event streams on two `serve` processes sharing one PostgreSQL, as behind a load balancer: an event made through
// one instance reaches a stream held by the other within a second, in order; a stream resumed on the other
// instance with Last-Event-ID misses nothing; and the query credential (?access_token=) never reaches the logs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import example from "../../adapters/http/examples/sendtrip-new.json";
import { startDatabase, type TestDatabase } from "../support/pg-databases";
import { postJson, registerCompany, startServer, tempDir, type RunningServer } from "../support/process";
import { SseClient } from "../support/sse";
import { pickupIn } from "../support/trips";

let cluster: TestDatabase;
const servers: RunningServer[] = [];
const clients: SseClient[] = [];

const env = () => ({
  DATABASE_URL: cluster.url,
  JWT_SECRET: "events-multi-instance-secret-at-least-32-bytes!",
  SECRETS_KEY: "5e".repeat(32),
  DEMO_DATA: "0",
  LOG_LEVEL: "info",
  DB_PATH: `${tempDir("tripswitch-ev-")}/index.db`,
});


async function open(s: RunningServer, query: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = await SseClient.open(`${s.base}/api/events${query}`, headers);
  clients.push(c);
  expect(c.status).toBe(200);
  await c.until(() => c.comments.includes("connected"), 5000, "connected");
  return c;
}

beforeAll(async () => {
  cluster = await startDatabase();
  servers.push(...(await Promise.all([0, 1].map(() => startServer(env(), { timeoutMs: 60_000, captureStdout: true })))));
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(servers.map((s) => s.stop()));
  await cluster?.stop();
});

describe("event streams on two instances of one PostgreSQL", () => {
  test("an event made on one instance reaches a stream on the other within a second, in order; a resume on the first loses nothing; the URL credential is not logged", async () => {
    const [a, b] = servers;
    const requester = await registerCompany(a, "EVREQ", "CO");
    const provider = await registerCompany(a, "EVOPS", "IO");
    // Held by instance B, with the credential in the URL as EventSource sends it.
    const onB = await open(b, `?access_token=${encodeURIComponent(requester.jwt)}`);
    const providerOnB = await open(b, `?access_token=${encodeURIComponent(provider.token)}`);

    const trip = structuredClone(example) as any;
    trip.affiliateReservation = { ...trip.affiliateReservation, requesterId: requester.netid, providerId: provider.netid, requesterResNo: `EV-${Date.now()}` };
    // Soon enough that the trip may be under way (docs/integration.md#trip-statuses-wait-for-the-trip).
    trip.locations.pickup.time = pickupIn(3);
    const sent = await postJson(`${a.base}/Platform.svc/sendTrip/V1`, trip, { token: requester.token });
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;
    const t0 = performance.now();
    await onB.until(() => onB.events.some((e) => e.json?.data?.transactionId === id), 1000, "booking.created on the other instance within 1 s");
    expect(onB.events.find((e) => e.json?.data?.transactionId === id)!.at - t0).toBeLessThan(1000);
    await providerOnB.until(() => providerOnB.events.some((e) => e.event === "booking.created"), 1000, "the provider's booking.created within 1 s");

    const moves = ["CONFIRMED", "ASSIGNED", "EN_ROUTE"];
    for (const status of moves) {
      const res = await postJson(`${a.base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, { status }, { token: provider.token });
      expect(res.status).toBe(200);
      const t = performance.now();
      await onB.until(() => onB.events.some((e) => e.json?.data?.lastStatus === status), 1000, `${status} within 1 s`);
      expect(performance.now() - t).toBeLessThan(1000);
    }
    const statuses = onB.events.filter((e) => e.event === "booking.status_changed").map((e) => e.json.data.lastStatus);
    expect(statuses).toEqual(moves);

    // A position pushed through B reaches a requester's stream on A.
    const onA = await open(a, "", { authorization: `Bearer ${requester.jwt}` });
    const pushed = await postJson(`${b.base}/api/GGPS.svc/saveGPScache`, { transactionId: id, latitude: 40.64, longitude: -73.78 }, { token: provider.token });
    expect(pushed.status).toBe(200);
    await onA.until(() => onA.events.some((e) => e.event === "chauffeur.position"), 1500, "the position on A");

    // B's client disconnects; changes go on through B; it resumes on A after its last event: nothing lost, nothing twice.
    onB.close();
    const last = onB.lastId!;
    const before = onB.events.length;
    for (const status of ["ON_LOCATION", "PASSENGER_ON_BOARD"]) {
      const res = await postJson(`${b.base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, { status }, { token: provider.token });
      expect(res.status).toBe(200);
    }
    const resumed = await open(a, "", { authorization: `Bearer ${requester.jwt}`, "last-event-id": last });
    await resumed.until(() => resumed.events.some((e) => e.json?.data?.lastStatus === "PASSENGER_ON_BOARD"), 3000, "the missed changes");
    const missed = resumed.events.filter((e) => e.event === "booking.status_changed").map((e) => e.json.data.lastStatus);
    expect(missed).toEqual(["ON_LOCATION", "PASSENGER_ON_BOARD"]);
    // Ids are opaque (docs/events.md), and the same on every instance: B's ids resume on A; none is sent twice.
    const resumedIds = resumed.events.map((e) => e.id!);
    for (const i of resumedIds) expect(i).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(resumedIds.some((i) => onB.events.some((e) => e.id === i))).toBe(false);
    expect(before).toBeGreaterThan(0);

    // A bad URL credential answers 401; neither instance's log holds any credential sent in the URL.
    const bad = await fetch(`${a.base}/api/events?access_token=not-a-real-token-0123456789`);
    expect(bad.status).toBe(401);
    await bad.text();
    await Bun.sleep(300);
    const logs = servers.map((s) => s.stdout()).join("\n");
    expect(logs).toContain('"route":"/api/events"');
    for (const secret of [requester.jwt, provider.token, "not-a-real-token-0123456789", "access_token"]) expect(logs).not.toContain(secret);
  }, 60_000);

  test("at most 10 streams per company across the instances: an 11th on either ends the company's oldest, wherever it is held", async () => {
    const [a, b] = servers;
    const busy = await registerCompany(a, "EVBUSY", "IO");
    const auth = { authorization: `Bearer ${busy.jwt}` };
    const held: SseClient[] = [];
    for (let i = 0; i < 10; i++) held.push(await open(i % 2 === 0 ? a : b, "", auth));
    // The oldest is on A; the 11th opens on B and A ends its stream within 5 s.
    const t0 = performance.now();
    const eleventh = await open(b, "", auth);
    await held[0].until(() => held[0].ended, 5000, "the oldest (on A) to end");
    expect(held[0].of("revoked").map((e) => e.json)).toEqual([{ type: "revoked", reason: "STREAM_LIMIT" }]);
    expect(held[0].of("revoked")[0].at - t0).toBeLessThan(5000);
    // The next oldest is on B; a 12th on A ends it.
    await open(a, "", auth);
    await held[1].until(() => held[1].ended, 5000, "the next oldest (on B) to end");
    expect(held[1].of("revoked")[0].json.reason).toBe("STREAM_LIMIT");
    for (const c of [...held.slice(2), eleventh]) expect(c.ended).toBe(false);
  }, 30_000);

  test("a token released on one instance ends the stream the other holds within 5 s (core JWT and platform token)", async () => {
    const [a, b] = servers;
    const p = await registerCompany(a, "EVREVOKE", "IO");
    const byJwt = await open(b, "", { authorization: `Bearer ${p.jwt}` });
    const byToken = await open(b, `?access_token=${encodeURIComponent(p.token)}`);
    const released = await postJson(`${a.base}/api/token/release`, {}, { authorization: `Bearer ${p.jwt}` });
    expect(released.status).toBe(200);
    const t0 = performance.now();
    await byJwt.until(() => byJwt.ended, 5000, "the JWT stream on B to end");
    expect(byJwt.of("revoked").map((e) => e.json)).toEqual([{ type: "revoked", reason: "TOKEN_REVOKED" }]);
    expect(byJwt.of("revoked")[0].at - t0).toBeLessThan(5000);
    expect(byToken.ended).toBe(false);
    const releasedToken = await postJson(`${a.base}/Platform.svc/releaseToken`, {}, { token: p.token });
    expect(releasedToken.status).toBe(200);
    const t1 = performance.now();
    await byToken.until(() => byToken.ended, 5000, "the platform-token stream on B to end");
    expect(byToken.of("revoked")[0].json.reason).toBe("TOKEN_REVOKED");
    expect(byToken.of("revoked")[0].at - t1).toBeLessThan(5000);
  }, 30_000);
});
