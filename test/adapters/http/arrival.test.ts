import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, parties, pickupIn, type Party, providerUpdate, sendTrip, soonTrip } from "../../support/trips";

// The arrival from positions (docs/flights.md#arrival), through HTTP, on either database.

let h: Harness;
let clock: ManualClock;
let requester: Party, provider: Party;
let hooks: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  // 20 min behind the real clock: webhooks (due at the change's time) go out at once however far the tests move it.
  clock = new ManualClock(Math.floor(Date.now() / 1000) - 1200);
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  ({ requester, provider } = await parties(h, "-ARR"));
  hooks = startReceiver();
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks` })).status).toBe(200);
  h.services.worker.start();
});

afterAll(() => {
  hooks.stop();
  h.close();
});

/** A street pickup (150 m reach) at these coordinates; the example's JFK pickup is an airport one (1.5 km). */
const STREET = { lat: 40.7484, lon: -73.9857 };
const streetPickup = (hours = 3) => ({
  locationType: "address",
  address: "20 W 34th St, New York, NY 10001",
  lat: String(STREET.lat),
  lon: String(STREET.lon),
  time: pickupIn(hours, clock.now()),
});

async function booking(statuses: string[], pickup?: Record<string, unknown>) {
  const body = soonTrip(requester.netid, provider.netid, {}, {}, clock.now());
  if (pickup) body.locations = { ...body.locations, pickup };
  const sent = await sendTrip(h, requester, body);
  const id = sent.body.transactionId as string;
  for (const status of statuses) {
    const res = await providerUpdate(h, provider, id, { status });
    if (res.status !== 200) throw new Error(`${status}: ${res.text}`);
  }
  return id;
}

/** A position `north` metres north of `at`, taken `agoSeconds` before the clock's now. */
async function push(id: string, at: { lat: number; lon: number }, north: number, agoSeconds = 0) {
  clock.advance(2);
  const taken = new Date((clock.now() - agoSeconds) * 1000).toISOString().replace(".000Z", "Z");
  const res = await h.request("POST", "/api/GGPS.svc/saveGPScache", {
    body: { transactionId: id, latitude: at.lat + north / 111_195, longitude: at.lon, locationDateTime: taken },
    headers: { token: provider.token },
  });
  expect(res.status).toBe(200);
  return taken;
}

const read = async (who: Party, id: string) => (await lookup(h, who, id)).body.data;

async function webhook(id: string, type: string) {
  const deadline = Date.now() + 15_000;
  const find = () => hooks.received.find((r) => r.json?.type === type && r.json.data.transactionId === id);
  while (!find() && Date.now() < deadline) await Bun.sleep(20);
  return find()?.json;
}

/** The booking's events of `type` on the party's event stream log (PostgreSQL numbers them shortly after the commit). */
async function liveEvents(who: Party, id: string, type: string) {
  const deadline = Date.now() + 15_000;
  const log = h.services.storage.liveEvents as typeof h.services.storage.liveEvents & { sequence?: () => Promise<void> };
  for (;;) {
    await log.sequence?.();
    const events = await h.services.storage.liveEvents.recent(who.netid.toLowerCase(), type, 50);
    const mine = events.map((e) => JSON.parse(e.body)).filter((b) => b.data.transactionId === id);
    if (mine.length > 0 || Date.now() > deadline) return mine;
    await Bun.sleep(25);
  }
}

describe("arrival from positions", () => {
  test("the first position within 150 m of a street pickup, from ASSIGNED on, is the arrival: reads, webhook and events", async () => {
    const id = await booking(["CONFIRMED", "ASSIGNED"], streetPickup());
    await push(id, STREET, 400);
    expect((await read(requester, id)).arrivedAt).toBeUndefined();
    // Taken 40 s before it was sent: the time taken is the arrival, not the time received.
    const arrived = await push(id, STREET, 100, 40);
    await push(id, STREET, 10);
    for (const who of [requester, provider]) {
      const data = await read(who, id);
      expect(data.arrivedAt).toBe(arrived);
      expect(data.flags).toBeUndefined();
    }
    const hook = await webhook(id, "booking.arrived");
    expect(hook?.data.arrivedAt).toBe(arrived);
    for (const who of [requester, provider]) expect((await liveEvents(who, id, "booking.arrived")).map((b) => b.data.arrivedAt)).toEqual([arrived]);
    expect((await read(requester, id)).tripPacket.changeLogs.at(-1).changeDesc).toBe(`chauffeur arrived at the pickup at ${arrived} (positions)`);
  });

  test("a position at the pickup before ASSIGNED is no arrival; the first one after it is", async () => {
    const id = await booking(["CONFIRMED"], streetPickup());
    await push(id, STREET, 0);
    expect((await read(requester, id)).arrivedAt).toBeUndefined();
    expect((await providerUpdate(h, provider, id, { status: "ASSIGNED" })).status).toBe(200);
    const arrived = await push(id, STREET, 50);
    expect((await read(requester, id)).arrivedAt).toBe(arrived);
  });

  test("an airport pickup reaches 1.5 km around the airport's position; a street pickup 150 m", async () => {
    const airport = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE"]);
    const jfk = { lat: 40.63983, lon: -73.77874 };
    await push(airport, jfk, 1700);
    expect((await read(requester, airport)).arrivedAt).toBeUndefined();
    const arrived = await push(airport, jfk, 1200);
    expect((await read(requester, airport)).arrivedAt).toBe(arrived);
    const street = await booking(["CONFIRMED", "ASSIGNED"], streetPickup());
    await push(street, STREET, 200);
    expect((await read(requester, street)).arrivedAt).toBeUndefined();
  });

  test("an ON_LOCATION sent more than 5 minutes before the arrival flags the booking; within 5 minutes it does not", async () => {
    const early = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], streetPickup());
    clock.advance(6 * 60);
    const arrived = await push(early, STREET, 20);
    const data = await read(requester, early);
    expect(data.arrivedAt).toBe(arrived);
    expect(data.flags).toEqual(["ON_LOCATION_BEFORE_ARRIVAL"]);
    expect((await webhook(early, "booking.arrived"))?.data.flags).toEqual(["ON_LOCATION_BEFORE_ARRIVAL"]);

    const fair = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"], streetPickup());
    clock.advance(4 * 60);
    await push(fair, STREET, 20);
    expect((await read(requester, fair)).flags).toBeUndefined();
  });
});

describe("ETA from the latest position", () => {
  test("while ASSIGNED or EN_ROUTE: the great circle × 1.3 at 40 km/h, in reads and webhooks; none once ON_LOCATION", async () => {
    const id = await booking(["CONFIRMED", "ASSIGNED"], streetPickup());
    // 10 km north: 13 km of road at 40 km/h is 19.5 minutes, shown as 20.
    const taken = await push(id, STREET, 10_000);
    const eta = { toPickupMinutes: 20, at: new Date(Date.parse(taken) + 20 * 60_000).toISOString().replace(".000Z", "Z") };
    for (const who of [requester, provider]) expect((await read(who, id)).eta).toEqual(eta);
    expect((await read(requester, id)).tripPacket.location).toEqual({ lat: STREET.lat + 10_000 / 111_195, lon: STREET.lon, timestamp: taken });
    expect((await webhook(id, "booking.location_changed"))?.data.eta).toEqual(eta);
    expect((await providerUpdate(h, provider, id, { status: "EN_ROUTE" })).status).toBe(200);
    expect((await read(requester, id)).eta).toEqual(eta);
    expect((await providerUpdate(h, provider, id, { status: "ON_LOCATION" })).status).toBe(200);
    expect((await read(requester, id)).eta).toBeUndefined();
  });

  test("at the provider's etaSpeedKmh (5–150, else 400 naming it); no ETA before ASSIGNED", async () => {
    for (const bad of [4, 151, 40.5, "40"]) {
      const refused = await integrate(h, provider, { policies: { etaSpeedKmh: bad } });
      expect({ bad, status: refused.status, fields: refused.body.errors?.map((e: { field: string }) => e.field) }).toEqual({ bad, status: 400, fields: ["policies.etaSpeedKmh"] });
    }
    expect((await integrate(h, provider, { policies: { etaSpeedKmh: 60 } })).status).toBe(200);
    const early = await booking(["CONFIRMED"], streetPickup());
    await push(early, STREET, 10_000);
    expect((await read(requester, early)).eta).toBeUndefined();
    const id = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE"], streetPickup());
    await push(id, STREET, 10_000);
    expect((await read(requester, id)).eta?.toPickupMinutes).toBe(13);
    expect((await integrate(h, provider, { policies: { etaSpeedKmh: null } })).status).toBe(200);
  });
});

describe("no-show", () => {
  const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
  const noShow = (id: string) => providerUpdate(h, provider, id, { status: "NO_SHOW" });

  test("409 NO_SHOW_TOO_EARLY until the free minutes after the pickup (the arrival came earlier), naming the instant", async () => {
    const id = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE"], streetPickup(0.1));
    const pickup = (await read(requester, id)).pickupDate as number;
    await push(id, STREET, 0);
    expect((await providerUpdate(h, provider, id, { status: "ON_LOCATION" })).status).toBe(200);
    const early = await noShow(id);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: "NO_SHOW_TOO_EARLY", status: "NO_SHOW", allowedFrom: iso(pickup + 15 * 60) });
    expect((await read(requester, id)).lastStatus).toBe("ON_LOCATION");
    clock.t = pickup + 15 * 60 - 1;
    expect((await noShow(id)).status).toBe(409);
    clock.t = pickup + 15 * 60;
    expect((await noShow(id)).status).toBe(200);
    expect((await read(requester, id)).lastStatus).toBe("NO_SHOW");
  });

  test("a chauffeur that arrived after the pickup waits the free minutes from its arrival", async () => {
    const id = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE"], streetPickup(0.1));
    const pickup = (await read(requester, id)).pickupDate as number;
    clock.t = pickup + 10 * 60;
    const arrived = await push(id, STREET, 0);
    expect(arrived).toBe(iso(pickup + 10 * 60 + 2));
    expect((await providerUpdate(h, provider, id, { status: "ON_LOCATION" })).status).toBe(200);
    clock.t = pickup + 20 * 60;
    expect((await noShow(id)).body).toMatchObject({ code: "NO_SHOW_TOO_EARLY", allowedFrom: iso(pickup + 10 * 60 + 2 + 15 * 60) });
    clock.t = pickup + 25 * 60 + 2;
    expect((await noShow(id)).status).toBe(200);
  });
});

describe("waiting", () => {
  test("waitingRate is checked (400 naming each bad member)", async () => {
    const bad = await integrate(h, provider, { policies: { waitingRate: { amount: "1.2345", perMinutes: 0, per: 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "policies.waitingRate.amount",
      "policies.waitingRate.per",
      "policies.waitingRate.perMinutes",
    ]);
  });

  test("beyond the free minutes each started period adds a WAITING line to the fees and the total, with its evidence", async () => {
    const set = await integrate(h, provider, { policies: { waitingRate: { amount: "20" } } });
    expect(set.body.data.policies.waitingRate).toEqual({ amount: "20", perMinutes: 15 });
    const id = await booking(["CONFIRMED", "ASSIGNED", "EN_ROUTE"], streetPickup(0.1));
    expect((await integrate(h, provider, { policies: { waitingRate: null } })).status).toBe(200);
    const before = await read(requester, id);
    expect(before.terms.waitingRate).toEqual({ amount: "20", perMinutes: 15 });
    const pickup = before.pickupDate as number;
    const arrivedAt = await push(id, STREET, 0);
    expect((await providerUpdate(h, provider, id, { status: "ON_LOCATION" })).status).toBe(200);
    // 40 minutes after the pickup: 25 beyond the 15 free, two started periods of 15.
    clock.t = pickup + 40 * 60;
    expect((await providerUpdate(h, provider, id, { status: "PASSENGER_ON_BOARD" })).status).toBe(200);
    const after = await read(requester, id);
    const evidence = { arrivedAt, onBoardAt: new Date(clock.now() * 1000).toISOString().replace(".000Z", "Z"), waitedMinutes: 40 };
    const waiting = after.tripPacket.fees.filter((f: { code?: string }) => f.code === "WAITING");
    expect(waiting).toEqual([1, 2].map((n) => ({ type: "CHARGE", code: "WAITING", name: `Waiting, period ${n} of 2 (15 min)`, fee: "20.00", evidence })));
    expect(Number(after.tripPacket.totalAmount)).toBeCloseTo(Number(before.tripPacket.totalAmount) + 40, 2);
    expect((await read(provider, id)).tripPacket.fees.filter((f: { code?: string }) => f.code === "WAITING")).toHaveLength(2);
  });
});
