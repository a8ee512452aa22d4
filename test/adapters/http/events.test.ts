// GET /api/events over real sockets: the service listens on a loopback port and the tests read the streams as an
// EventSource client would. Order, resume with Last-Event-ID, reset, the requester's privacy after the trip,
// the stream limit, a slow reader cut, heartbeats, and who may read what.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, parties, type Party, providerUpdate, regularTrip, sendTrip, soonTrip } from "../../support/trips";
import { SseClient } from "../../support/sse";

let h: Harness;
let clock: ManualClock;
let server: { stop(force?: boolean): unknown; port?: number } | undefined;
let base = "";
let requester: Party, provider: Party, stranger: Party;
let hooks: ReturnType<typeof startReceiver>;
const clients: SseClient[] = [];

const HEARTBEAT_MS = 300;
const MAX_QUEUED_EVENTS = 40;

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000));
  h = createHarness({ clock, delivery: FAST_DELIVERY, events: { heartbeatMs: HEARTBEAT_MS, maxQueuedEvents: MAX_QUEUED_EVENTS, maxQueuedBytes: 256 * 1024 } });
  const app = h.app.listen({ hostname: "127.0.0.1", port: 0 });
  server = app.server ?? undefined;
  base = `http://127.0.0.1:${app.server!.port}`;
  ({ requester, provider, stranger } = await parties(h, "-SSE"));
  hooks = startReceiver();
  const put = await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks` });
  expect(put.status).toBe(200);
  h.services.worker.start();
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  // Closed streams leave the hub once the service sees their connections end.
  const deadline = Date.now() + 5000;
  while (h.services.liveHub.openStreams() > 0 && Date.now() < deadline) await Bun.sleep(20);
});

afterAll(async () => {
  hooks.stop();
  server?.stop(true);
  await h.close();
});

async function stream(who: Party | { jwt: string }, opts: { lastEventId?: string; query?: string; headers?: Record<string, string> } = {}): Promise<SseClient> {
  const headers: Record<string, string> = opts.headers ?? { authorization: `Bearer ${who.jwt}` };
  if (opts.lastEventId !== undefined) headers["last-event-id"] = opts.lastEventId;
  const client = await SseClient.open(`${base}/api/events${opts.query ?? ""}`, headers);
  clients.push(client);
  if (client.status === 200) await client.until(() => client.comments.includes("connected"), 5000, "the connected comment");
  return client;
}

async function newTrip(): Promise<string> {
  const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid));
  expect(sent.status).toBe(200);
  return sent.body.transactionId;
}

async function move(id: string, status: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await providerUpdate(h, provider, id, { status, ...extra });
  expect(res.status).toBe(200);
}

const ofBooking = (c: SseClient, id: string) => c.events.filter((e) => e.json?.data?.transactionId === id);
const statuses = (c: SseClient, id: string) => ofBooking(c, id).filter((e) => e.event === "booking.status_changed").map((e) => e.json.data.lastStatus);
const ids = (c: SseClient) => c.events.map((e) => e.id!);
/** Event ids are opaque (docs/events.md): 22 base64url characters, nothing to count or compare. */
const OPAQUE = /^[A-Za-z0-9_-]{22}$/;

describe("GET /api/events", () => {
  test("both parties' streams carry a booking's events in order, as the webhook's types and bodies; another company's stream carries none", async () => {
    const [mine, theirs, other] = await Promise.all([stream(requester), stream(provider), stream(stranger)]);
    expect(mine.headers.get("content-type")).toStartWith("text/event-stream");
    expect(mine.headers.get("x-request-id")).toBeTruthy();
    const id = await newTrip();
    for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"]) await move(id, s);
    for (const c of [mine, theirs]) await c.until(() => statuses(c, id).length === 4, 5000, "four status changes");
    for (const c of [mine, theirs]) {
      expect(ofBooking(c, id)[0].event).toBe("booking.created");
      expect(statuses(c, id)).toEqual(["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"]);
      // Each event once, each id opaque and distinct.
      const seen = ids(c);
      expect(new Set(seen).size).toBe(seen.length);
      for (const i of seen) expect(i).toMatch(OPAQUE);
      for (const e of ofBooking(c, id)) expect(e.json).toMatchObject({ type: e.event, eventId: expect.any(String), createdAt: expect.any(Number) });
    }
    // The body is the booking as its reader's lookup shows it (the lookup alone adds the pickup's zone).
    const { pickupZone: _zone, ...view } = (await lookup(h, requester, id)).body.data;
    expect(ofBooking(mine, id).at(-1)!.json.data).toEqual(view);
    // The requester's webhook got the same event types in the same order.
    await Bun.sleep(50);
    const deadline = Date.now() + 5000;
    const hookTypes = () => hooks.received.filter((r) => r.json?.data?.transactionId === id).map((r) => r.json.type);
    while (hookTypes().length < 5 && Date.now() < deadline) await Bun.sleep(20);
    expect(hookTypes()).toEqual(ofBooking(mine, id).map((e) => e.event!));
    await Bun.sleep(300);
    expect(ofBooking(other, id)).toEqual([]);
  });

  test("a reconnect with Last-Event-ID gets every event missed meanwhile, once, in order (header or lastEventId)", async () => {
    const first = await stream(requester);
    const id = await newTrip();
    await move(id, "CONFIRMED");
    await first.until(() => statuses(first, id).length === 1, 5000, "CONFIRMED");
    first.close();
    const last = first.lastId!;
    await move(id, "ASSIGNED");
    await move(id, "EN_ROUTE");
    await move(id, "ON_LOCATION", { providerNote: "curb 3" });
    const again = await stream(requester, { lastEventId: last });
    await again.until(() => statuses(again, id).length === 3, 5000, "the three missed changes");
    expect(again.of("reset")).toEqual([]);
    expect(statuses(again, id)).toEqual(["ASSIGNED", "EN_ROUTE", "ON_LOCATION"]);
    expect(ids(again)).not.toContain(last);
    expect(ids(again).some((i) => ids(first).includes(i))).toBe(false);
    // The same through the query parameter, and nothing more arrives than what was missed.
    const viaQuery = await stream(requester, { query: `?lastEventId=${last}` });
    await viaQuery.until(() => statuses(viaQuery, id).length === 3, 5000, "the three missed changes");
    await Bun.sleep(300);
    expect(viaQuery.events.map((e) => e.id)).toEqual(again.events.map((e) => e.id));
    // Live events keep coming after the backlog.
    await move(id, "PASSENGER_ON_BOARD");
    await again.until(() => statuses(again, id).length === 4, 5000, "the live change");
    expect(statuses(again, id).at(-1)).toBe("PASSENGER_ON_BOARD");
  });

  test("a Last-Event-ID the log no longer keeps, or never had, gets `event: reset` and then the events from now", async () => {
    const unknown = await stream(requester, { lastEventId: "99999999" });
    await unknown.until(() => unknown.events.length >= 1, 5000, "reset");
    expect(unknown.events[0].event).toBe("reset");
    expect(unknown.events[0].json).toMatchObject({ type: "reset", reason: "UNKNOWN_EVENT_ID" });
    expect(unknown.events[0].id).toBe(unknown.events[0].json.lastEventId);
    const garbage = await stream(requester, { lastEventId: "not-an-id" });
    await garbage.until(() => garbage.events.length >= 1, 5000, "reset");
    expect(garbage.events[0].json.reason).toBe("UNKNOWN_EVENT_ID");

    // An id older than what the log keeps (retention pruned it).
    const first = await stream(requester);
    const id = await newTrip();
    await first.until(() => ofBooking(first, id).length === 1, 5000, "booking.created");
    first.close();
    const old = first.lastId!;
    const headBefore = await h.services.storage.liveEvents.head();
    await h.rows("DELETE FROM live_events WHERE created_at <= ?", clock.now() + 10);
    await move(id, "CONFIRMED");
    // The log numbers events once committed; wait until the new one is there.
    const deadline = Date.now() + 5000;
    while ((await h.services.storage.liveEvents.head()) <= headBefore && Date.now() < deadline) await Bun.sleep(50);
    const expired = await stream(requester, { lastEventId: old });
    await expired.until(() => expired.events.length >= 1, 5000, "reset");
    expect(expired.events[0]).toMatchObject({ event: "reset", json: { reason: "EVENT_ID_EXPIRED" } });
    await move(id, "ASSIGNED");
    await expired.until(() => statuses(expired, id).includes("ASSIGNED"), 5000, "the next change");
    expect(statuses(expired, id)).toEqual(["ASSIGNED"]);
  });

  test("positions reach both parties while the trip is under way; after it ends, the provider's stream only", async () => {
    const id = await newTrip();
    for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE"]) await move(id, s);
    const [mine, theirs] = await Promise.all([stream(requester), stream(provider)]);
    const push = (lat: number) => h.request("POST", "/api/GGPS.svc/saveGPScache", { body: { transactionId: id, latitude: lat, longitude: -71.0096, chfName: "Sam Lee" }, headers: { token: provider.token } });
    expect((await push(42.36)).status).toBe(200);
    for (const c of [mine, theirs]) await c.until(() => c.of("chauffeur.position").length === 1, 5000, "the position");
    expect(mine.of("chauffeur.position")[0].json.data).toMatchObject({ transactionId: id, location: { lat: 42.36, lon: -71.0096 }, chfName: "Sam Lee" });
    for (const s of ["ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE"]) await move(id, s);
    clock.advance(2);
    expect((await push(42.37)).status).toBe(200);
    await theirs.until(() => theirs.of("chauffeur.position").length === 2, 5000, "the provider's second position");
    expect(theirs.of("chauffeur.position")[1].json.data.location.lat).toBe(42.37);
    await mine.until(() => statuses(mine, id).includes("COMPLETE"), 5000, "COMPLETE");
    await Bun.sleep(400);
    expect(mine.of("chauffeur.position").map((e) => e.json.data.location.lat)).toEqual([42.36]);
    // The booking event that ended the trip shows the requester no position either.
    expect(ofBooking(mine, id).at(-1)!.json.data.tripPacket.location).toBeUndefined();
    // Nor does a stream that resumes from before: what the requester reads after the trip ends has no position.
    const resumed = await stream(requester, { lastEventId: mine.events[0].id });
    await resumed.until(() => statuses(resumed, id).includes("COMPLETE"), 5000, "COMPLETE");
    await Bun.sleep(300);
    expect(resumed.of("chauffeur.position")).toEqual([]);
  });

  test("positions are logged only for companies that follow them (an event stream now or lately): no stream, no position rows", async () => {
    const { requester: r, provider: p } = await parties(h, "-FOLLOW");
    const sent = await sendTrip(h, r, soonTrip(r.netid, p.netid));
    const id = sent.body.transactionId as string;
    for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE"]) expect((await providerUpdate(h, p, id, { status: s })).status).toBe(200);
    const push = () => h.request("POST", "/api/GGPS.svc/saveGPScache", { body: { transactionId: id, latitude: 40.64, longitude: -73.78 }, headers: { token: p.token } });
    const positionRows = async () => (await h.rows<{ netid: string }>("SELECT netid FROM live_events WHERE transaction_id = ? AND kind = 'position' ORDER BY netid", id)).map((x) => x.netid);
    expect((await push()).status).toBe(200);
    await Bun.sleep(300);
    expect(await positionRows()).toEqual([]);
    // The provider opens a stream: from now on its positions are logged (the requester, which never did, gets none).
    const c = await stream(p);
    clock.advance(2);
    expect((await push()).status).toBe(200);
    await c.until(() => c.of("chauffeur.position").length === 1, 5000, "the position");
    expect(await positionRows()).toEqual([p.netid.toLowerCase()]);
    // Its stream closed, it still follows (it may resume within the window).
    c.close();
    const deadline = Date.now() + 5000;
    while (h.services.liveHub.openStreams(p.netid) > 0 && Date.now() < deadline) await Bun.sleep(20);
    clock.advance(2);
    expect((await push()).status).toBe(200);
    await Bun.sleep(300);
    expect(await positionRows()).toEqual([p.netid.toLowerCase(), p.netid.toLowerCase()]);
  });

  test("at most 10 streams per company: the 11th ends the oldest (event: revoked, STREAM_LIMIT); another company is not affected", async () => {
    const { provider: busy, requester: calm } = await parties(h, "-LIM");
    const open: SseClient[] = [];
    for (let i = 0; i < 10; i++) open.push(await stream(busy));
    const calmStream = await stream(calm);
    const eleventh = await stream(busy);
    expect(eleventh.status).toBe(200);
    await open[0].until(() => open[0].ended, 5000, "the oldest to end");
    expect(open[0].of("revoked").map((e) => e.json)).toEqual([{ type: "revoked", reason: "STREAM_LIMIT" }]);
    expect(h.services.liveHub.openStreams(busy.netid)).toBe(10);
    for (const c of [...open.slice(1), eleventh, calmStream]) expect(c.ended).toBe(false);
    for (const c of open) c.close();
  });

  test("a reader that stops reading is cut once it falls behind; it resumes with Last-Event-ID and nothing is lost", async () => {
    const { requester: reader, provider: ops } = await parties(h, "-SLOW");
    const sent = await sendTrip(h, reader, regularTrip(reader.netid, ops.netid, { specialInstructions: "x".repeat(1500) }));
    const id = sent.body.transactionId as string;
    // A raw socket that reads the first event, then stops reading.
    const socket = net.connect(Number(new URL(base).port), "127.0.0.1");
    socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${reader.jwt}\r\nAccept: text/event-stream\r\n\r\n`);
    let received = "";
    let closed = false;
    let paused = false;
    socket.on("data", (d) => {
      received += d.toString();
      if (!paused && received.includes("booking.status_changed")) {
        paused = true;
        socket.pause();
      }
    });
    socket.on("close", () => (closed = true));
    socket.on("error", () => {});
    const deadline = Date.now() + 5000;
    while (!received.includes("connected") && Date.now() < deadline) await Bun.sleep(10);
    expect((await providerUpdate(h, ops, id, { status: "CONFIRMED" })).status).toBe(200);
    while (!received.includes("booking.status_changed") && Date.now() < deadline) await Bun.sleep(10);
    const cutBefore = h.services.liveHub.slowReadersCut;
    // Changes until the service cuts the stream (bounded): each event is a few KB, so the socket's buffers fill.
    let notes = 0;
    for (; notes < 3000 && h.services.liveHub.slowReadersCut === cutBefore; notes++) {
      const res = await providerUpdate(h, ops, id, { status: "CONFIRMED", providerNote: `note ${notes}` });
      expect(res.status).toBe(200);
      if (notes % 50 === 49) await Bun.sleep(150);
    }
    expect(h.services.liveHub.slowReadersCut).toBe(cutBefore + 1);
    expect(h.services.liveHub.openStreams(reader.netid)).toBe(0);
    // It reads again: the connection ends (what it held when dropped may be lost: the client resumes after what it read).
    socket.resume();
    const ended = () => closed || received.endsWith("\r\n0\r\n\r\n");
    const endBy = Date.now() + 10_000;
    while (!ended() && Date.now() < endBy) await Bun.sleep(20);
    expect(ended()).toBe(true);
    const frames = [...received.matchAll(/id: ([A-Za-z0-9_-]+)\nevent: ([^\n]+)\ndata: ([^\n]+)\n/g)].map((m) => ({ id: m[1], json: JSON.parse(m[3]) }));
    expect(frames.length).toBeGreaterThan(0);
    const noteOf = (json: any): string | undefined => json?.data?.tripPacket?.affiliateReservation?.providerNote;
    const got = frames.map((f) => noteOf(f.json)).filter((n) => n !== undefined);
    expect(got.length).toBeLessThan(notes);
    // Resume after the last event it read: the rest arrives, each note once, in order.
    const resumed = await stream(reader, { lastEventId: frames.at(-1)!.id });
    await resumed.until(() => noteOf(resumed.events.at(-1)?.json) === `note ${notes - 1}`, 15_000, "the last note");
    const all = [...got, ...resumed.events.map((e) => noteOf(e.json))];
    expect(all).toEqual(Array.from({ length: notes }, (_, i) => `note ${i}`));
    socket.destroy();
  }, 120_000);

  test("a quiet stream gets a heartbeat comment at the configured interval", async () => {
    const { requester: quiet } = await parties(h, "-HB");
    const c = await stream(quiet);
    const t0 = performance.now();
    await c.until(() => c.comments.filter((x) => x === "heartbeat").length >= 2, HEARTBEAT_MS * 10, "two heartbeats");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(HEARTBEAT_MS);
    expect(c.events).toEqual([]);
  });

  test("credentials: bearer JWT, the token header, or ?access_token= (JWT or platform token); 401 without or with a bad one; unknown paths 404", async () => {
    for (const headers of [{ token: requester.token }, {}] as Array<Record<string, string>>) {
      const q = Object.keys(headers).length ? "" : `?access_token=${encodeURIComponent(requester.jwt)}`;
      expect((await stream(requester, { headers, query: q })).status).toBe(200);
    }
    expect((await stream(requester, { headers: {}, query: `?access_token=${encodeURIComponent(requester.token)}` })).status).toBe(200);
    const none = await stream(requester, { headers: {} });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, code: "MISSING_TOKEN" });
    // The answer names all three ways to send one (#38).
    for (const way of ["Authorization: Bearer", "token:", "access_token"]) expect(none.body.message).toContain(way);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    const bad = await stream(requester, { headers: {}, query: "?access_token=not-a-token" });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe("INVALID_TOKEN");
    // A header credential is never replaced by one in the URL.
    const mixed = await stream(requester, { headers: { authorization: "Bearer bad.token.here" }, query: `?access_token=${encodeURIComponent(requester.jwt)}` });
    expect(mixed.status).toBe(401);
    const tooLong = await stream(requester, { headers: {}, query: `?access_token=${"a".repeat(5000)}` });
    expect(tooLong.status).toBe(400);
    const unknown = await fetch(`${base}/api/events/extra`, { headers: { authorization: `Bearer ${requester.jwt}` } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("ROUTE_NOT_FOUND");
  });
});
