import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, parties, type Party, providerUpdate, regularTrip, sendTrip, soonTrip } from "../../support/trips";

let h: Harness;
let clock: ManualClock;
let requester: Party, provider: Party, stranger: Party;
let hooks: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000));
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  ({ requester, provider, stranger } = await parties(h, "-GPS"));
  hooks = startReceiver();
  const put = await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks` });
  expect(put.status).toBe(200);
  h.services.worker.start();
});

afterAll(() => {
  hooks.stop();
  h.close();
});

async function trip(status = "EN_ROUTE") {
  const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid));
  const id = sent.body.transactionId as string;
  for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE"].slice(0, ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE"].indexOf(status) + 1)) {
    const res = await providerUpdate(h, provider, id, { status: s, ...(s === "CONFIRMED" ? { providerResNo: `P-${id.slice(-8)}`, chauffeur: { chauffeurId: "CH-12", firstName: "Sam", lastName: "Lee", picURL: "https://acme.example/sam.jpg" } } : {}) });
    if (res.status !== 200) throw new Error(`${s}: ${res.text}`);
  }
  return { id, resNo: `P-${id.slice(-8)}`, requesterResNo: sent.body && (await lookup(h, requester, id)).body.data.sourceResNo };
}

const push = (who: Party, body: unknown, auth: "token" | "bearer" = "token") =>
  h.request("POST", "/api/GGPS.svc/saveGPScache", { body, headers: auth === "token" ? { token: who.token } : { authorization: `Bearer ${who.jwt}` } });
const pull = (who: Party, path: string) => h.request("GET", `/Platform.svc/${path}`, { headers: { token: who.token } });

describe("chauffeur tracking", () => {
  test("push → the three pulls, the booking and a webhook carry the position", async () => {
    const { id, resNo, requesterResNo } = await trip();
    const res = await push(provider, { transactionId: id, latitude: 42.3656, longitude: "-71.0096", locationDateTime: "2025-12-11T21:10:00Z", chfName: "Sam Lee", driverId: "CH-12", griddid: "GRD-1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { transactionId: id } });
    const want = { chfId: "CH-12", chfName: "Sam Lee", code: "EN_ROUTE", griddID: "GRD-1", location: { lat: 42.3656, lon: -71.0096 }, picURL: "https://acme.example/sam.jpg", timestamp: "2025-12-11T21:10:00Z" };
    for (const who of [requester, provider]) {
      const byId = await pull(who, `getChauffeurLocationByTransactionId/${id}/V1`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject(want);
      expect((await pull(who, `getChauffeurLocationByResNo/${provider.netid}/${resNo}/v1`)).body).toMatchObject(want);
      const list = await pull(who, `getChauffeurLocationByResNoArray/${requester.netid}/${requesterResNo},NO-SUCH`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([{ resNo: requesterResNo, transactionId: id, ...want }]);
    }
    expect((await lookup(h, requester, id)).body.data.tripPacket.location).toEqual({ lat: 42.3656, lon: -71.0096, timestamp: "2025-12-11T21:10:00Z" });
    const deadline = Date.now() + 5000;
    while (!hooks.received.some((r) => r.json?.type === "booking.location_changed" && r.json.data.transactionId === id) && Date.now() < deadline) await Bun.sleep(20);
    const hook = hooks.received.find((r) => r.json?.type === "booking.location_changed" && r.json.data.transactionId === id);
    expect(hook?.json.data.tripPacket.location).toEqual({ lat: 42.3656, lon: -71.0096, timestamp: "2025-12-11T21:10:00Z" });
  });

  test("a second push within a second is 429 with Retry-After; a second later it is taken", async () => {
    const { id, resNo } = await trip();
    expect((await push(provider, { transactionId: id, latitude: 40, longitude: -73 }, "bearer")).status).toBe(200);
    const again = await push(provider, { internalBookingId: resNo, latitude: 40.001, longitude: -73 });
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("1");
    expect(again.body.code).toBe("POSITION_THROTTLED");
    clock.advance(1);
    expect((await push(provider, { internalBookingId: resNo, latitude: 40.002, longitude: -73.001 })).status).toBe(200);
    expect((await pull(requester, `getChauffeurLocationByTransactionId/${id}`)).body.location).toEqual({ lat: 40.002, lon: -73.001 });
  });

  test("a stranger's push and pull, the requester's push and an unknown booking are the same 404", async () => {
    const { id } = await trip();
    const body = { transactionId: id, latitude: 40, longitude: -73 };
    const unknown = await push(provider, { ...body, transactionId: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    for (const who of [stranger, requester]) {
      const res = await push(who, body);
      expect(res.status).toBe(404);
      expect(res.text).toBe(unknown.text);
    }
    const theirs = await pull(stranger, `getChauffeurLocationByTransactionId/${id}/V1`);
    const nobody = await pull(stranger, `getChauffeurLocationByTransactionId/${crypto.randomUUID()}/V1`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(nobody.text);
    // The parties see that there is no position yet.
    expect((await pull(requester, `getChauffeurLocationByTransactionId/${id}/V1`)).body.code).toBe("NO_POSITION");
  });

  test("after COMPLETE the requester sees no position (the provider still does); positions are range-checked", async () => {
    const { id } = await trip("PASSENGER_ON_BOARD");
    clock.advance(2);
    expect((await push(provider, { transactionId: id, latitude: 41, longitude: -72 })).status).toBe(200);
    expect((await providerUpdate(h, provider, id, { status: "COMPLETE" })).status).toBe(200);
    clock.advance(2);
    expect((await push(provider, { transactionId: id, latitude: 41.5, longitude: -72.5 })).status).toBe(200);
    const hidden = await pull(requester, `getChauffeurLocationByTransactionId/${id}/V1`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toMatchObject({ code: "POSITION_PRIVATE", message: expect.stringContaining("The trip has ended (COMPLETE)") });
    expect("location" in (await lookup(h, requester, id)).body.data.tripPacket).toBe(false);
    expect((await pull(provider, `getChauffeurLocationByTransactionId/${id}/V1`)).body.location).toEqual({ lat: 41.5, lon: -72.5 });
    expect((await lookup(h, provider, id)).body.data.tripPacket.location).toMatchObject({ lat: 41.5, lon: -72.5 });
    for (const [field, bad] of [["latitude", 91], ["latitude", "north"], ["longitude", -181], ["longitude", null]] as const) {
      const res = await push(provider, { transactionId: id, latitude: 41, longitude: -72, [field]: bad });
      expect({ field, status: res.status, fields: res.body.errors?.map((e: { field: string }) => e.field) }).toEqual({ field, status: 400, fields: [field] });
    }
  });

  test("a status update's lat/lon is the position too", async () => {
    const { id } = await trip("ASSIGNED");
    clock.advance(2);
    expect((await providerUpdate(h, provider, id, { status: "EN_ROUTE", lat: "42.1", lon: -71.2 })).status).toBe(200);
    expect((await pull(requester, `getChauffeurLocationByTransactionId/${id}/V1`)).body).toMatchObject({ code: "EN_ROUTE", location: { lat: 42.1, lon: -71.2 }, chfId: "CH-12", chfName: "Sam Lee" });
  });

  test("a position stamped more than 5 minutes ahead is 400 naming locationDateTime; a few minutes ahead (clock skew) is taken", async () => {
    const { id } = await trip();
    const at = (ms: number) => new Date(clock.now() * 1000 + ms).toISOString();
    const ahead = await push(provider, { transactionId: id, latitude: 40, longitude: -73, locationDateTime: at(6 * 60_000) });
    expect(ahead.status).toBe(400);
    expect(ahead.body.errors).toEqual([{ field: "locationDateTime", message: expect.stringContaining("5 minutes in the future") }]);
    const offset = await push(provider, { transactionId: id, latitude: 40, longitude: -73, locationDateTime: at(-60_000).replace("Z", "-05:00") });
    expect(offset.status).toBe(400); // a UTC time labelled New York is hours ahead
    const bulk = await h.request("POST", "/api/GGPS.svc/GPSgrab", { body: [{ transactionId: id, latitude: 40, longitude: -73, locationDateTime: at(3_600_000) }], headers: { token: provider.token } });
    expect(bulk.status).toBe(400);
    expect(bulk.body.errors[0].field).toBe("[0].locationDateTime");
    expect((await push(provider, { transactionId: id, latitude: 40, longitude: -73, locationDateTime: at(4 * 60_000) })).status).toBe(200);
  });

  test("a status update's position sends the requester a location webhook, as a pushed one does", async () => {
    const { id } = await trip("ASSIGNED");
    clock.advance(2);
    expect((await providerUpdate(h, provider, id, { status: "EN_ROUTE", lat: "42.2", lon: -71.3 })).status).toBe(200);
    // The requester's webhooks of the earlier tests are delivered first, in order.
    const deadline = Date.now() + 20_000;
    const found = () => hooks.received.find((r) => r.json?.type === "booking.location_changed" && r.json.data.transactionId === id);
    while (!found() && Date.now() < deadline) await Bun.sleep(20);
    expect(found()?.json.data.tripPacket.location).toMatchObject({ lat: 42.2, lon: -71.3 });
  }, 30_000);

  test("GPSgrab: checked whole, then each position kept or refused on its own", async () => {
    const a = await trip();
    const b = await trip();
    clock.advance(2);
    const bad = await h.request("POST", "/api/GGPS.svc/GPSgrab", { headers: { token: provider.token }, body: [{ transactionId: a.id, latitude: 1, longitude: 1 }, { transactionId: b.id, latitude: 100, longitude: 1 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["[1].latitude"]);
    expect((await pull(provider, `getChauffeurLocationByTransactionId/${a.id}/V1`)).status).toBe(404);
    const res = await h.request("POST", "/api/GGPS.svc/GPSgrab", {
      headers: { token: provider.token },
      body: [
        { transactionId: a.id, latitude: 1, longitude: 1 },
        { transactionId: a.id, latitude: 1.1, longitude: 1 },
        { internalBookingId: b.resNo, latitude: 2, longitude: 2 },
        { transactionId: crypto.randomUUID(), latitude: 3, longitude: 3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.accepted).toBe(2);
    expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual(["accepted", "throttled", "accepted", "not_found"]);
    const tooMany = await h.request("POST", "/api/GGPS.svc/GPSgrab", { headers: { token: provider.token }, body: Array.from({ length: 101 }, () => ({ transactionId: a.id, latitude: 1, longitude: 1 })) });
    expect(tooMany.status).toBe(400);
  });
});

describe("tracking and the write budget", () => {
  test("position pushes have their own throttle (one a second per booking), not the per-credential write budget", async () => {
    const clock2 = new ManualClock(Math.floor(Date.now() / 1000));
    const h2 = createHarness({ clock: clock2, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 2 } });
    try {
      const p = await parties(h2, "-BUDGET");
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await sendTrip(h2, p.requester, regularTrip(p.requester.netid, p.provider.netid))).body.transactionId);
      for (const transactionId of ids) {
        const res = await h2.request("POST", "/api/GGPS.svc/saveGPScache", { body: { transactionId, latitude: 40, longitude: -73 }, headers: { token: p.provider.token } });
        expect(res.status).toBe(200);
      }
      const bulk = await h2.request("POST", "/api/GGPS.svc/GPSgrab", { body: [{ transactionId: ids[0], latitude: 41, longitude: -73 }], headers: { token: p.provider.token } });
      expect(bulk.status).toBe(200);
      // Other writes of the same credential do spend it.
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await providerUpdate(h2, p.provider, ids[i], { status: "CONFIRMED" })).status);
      expect(codes).toEqual([200, 200, 429]);
    } finally {
      await h2.close();
    }
  });
});
