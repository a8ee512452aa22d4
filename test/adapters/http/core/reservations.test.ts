import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { lookup, parties, providerUpdate, quoteTrip, regularTrip, sendTrip, soonTrip, type Party } from "../../../support/trips";

let h: Harness;
let requester: Party, provider: Party, stranger: Party;

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider, stranger } = await parties(h));
});

const isString = (v: unknown) => typeof v === "string";
const isNumber = (v: unknown) => typeof v === "number" && Number.isInteger(v);

describe("GET /api/reservation/{transactionId}", () => {
  test("a NEW round trip: both parties see every spec field, with the right types, via core and platform", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    const before = Math.floor(Date.now() / 1000);
    const sent = await sendTrip(h, requester, body);
    const id = sent.body.transactionId;

    const views = [
      await lookup(h, requester, id),
      await lookup(h, provider, id),
      await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: requester.jwt } }),
      await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${provider.token}` } }),
      await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: provider.token } }),
      await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: requester.token } }),
      await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}`, { headers: { token: provider.token } }),
    ];
    for (const v of views) expect(v.status).toBe(200);
    const data = views[0].body.data;
    // The core lookup answers success and data (with the pickup's zone) and, beside data, where the trip's places are;
    // the platform reads answer the same view without the zone, and GNet's reservation at the top level beside it.
    for (const v of views.slice(0, 5)) expect(v.body).toEqual({ success: true, data, places: views[0].body.places, providerNext: views[0].body.providerNext });
    const { pickupZone, ...shared } = data;
    expect(pickupZone).toBe("America/New_York");
    for (const v of views.slice(5)) expect({ success: v.body.success, data: v.body.data, transactionId: v.body.transactionId }).toEqual({ success: true, data: shared, transactionId: id });

    expect(data).toMatchObject({
      transactionId: id,
      fromConextId: requester.netid,
      toConextId: provider.netid,
      userid: requester.netid,
      sourcePlatform: "API",
      targetPlatform: "TRIPSWITCH",
      sourceResNo: body.affiliateReservation.requesterResNo,
      targetResNo: null,
      lastStatus: "BOOKING_REQUEST",
    });
    for (const f of ["timestamp", "submitDate", "pickupDate"]) expect(isNumber(data[f])).toBe(true);
    expect(data.submitDate).toBeGreaterThanOrEqual(before);
    // 18:45 at JFK in December is 23:45 UTC.
    expect(data.pickupDate).toBe(Date.UTC(2027, 11, 3, 23, 45) / 1000);

    const p = data.tripPacket;
    for (const f of ["reservationType", "runType", "reservationDate", "passengerCount", "luggageCount", "preferredVehicleType", "specialInstructions", "status", "resStatus"])
      expect({ f, ok: isString(p[f]) }).toEqual({ f, ok: true });
    expect(p).toMatchObject({
      reservationType: "REGULAR",
      runType: "Airport",
      reservationDate: "2026-11-20T14:05:00-05:00",
      passengerCount: "3",
      luggageCount: "4",
      preferredVehicleType: "SUV",
      status: "BOOKING_REQUEST",
      resStatus: "Pending",
      locations: body.locations,
      passengers: body.passengers,
      account: body.account,
      fees: [],
      transactionErrors: [],
    });
    expect(p.affiliateReservation).toEqual({
      requesterId: requester.netid,
      requesterResNo: body.affiliateReservation.requesterResNo,
      providerId: provider.netid,
      action: "NEW",
      status: "BOOKING_REQUEST",
      notes: "",
    });
    expect(p.changeLogs).toHaveLength(1);
    expect(p.changeLogs[0]).toEqual({ timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), changeSource: `requester:${requester.netid}`, changeDesc: expect.stringContaining("BOOKING_REQUEST") });
  });

  test("providerNext: the statuses the provider may move the booking to now, one step at a time, the same for both parties", async () => {
    const id = (await sendTrip(h, requester, soonTrip(requester.netid, provider.netid))).body.transactionId;
    const next = async () => {
      const [mine, theirs] = [await lookup(h, provider, id), await lookup(h, requester, id)];
      expect(theirs.body.providerNext).toEqual(mine.body.providerNext);
      return mine.body.providerNext;
    };
    // A new request: no forward skip (ASSIGNED … CLOSE), no BOOKING_REQUEST (the requester's).
    expect(await next()).toEqual(["PENDING", "CONFIRMED", "REJECT", "FAILED", "CANCEL"]);
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    expect(await next()).toEqual(["ACKNOWLEDGED", "ASSIGNED", "CANCEL"]);
    expect((await providerUpdate(h, provider, id, { status: "COMPLETE" })).status).toBe(200);
    expect(await next()).toEqual(["CLOSE"]);
    expect((await providerUpdate(h, provider, id, { status: "CLOSE" })).status).toBe(200);
    expect(await next()).toEqual([]);
  });

  test("a third company gets a 404 byte-identical to an unknown id; a non-UUID id is 400; no credential is 401", async () => {
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    const theirs = await lookup(h, stranger, sent.body.transactionId);
    const unknown = await lookup(h, stranger, crypto.randomUUID());
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    const platform = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${sent.body.transactionId}/V1`, { headers: { token: stranger.token } });
    expect(platform.status).toBe(404);
    expect(platform.text).toBe(unknown.text);
    const bad = await lookup(h, requester, "12345");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe("transactionId");
    expect((await h.request("GET", `/api/reservation/${sent.body.transactionId}`)).status).toBe(401);
  });

  test("pickupDate: a local LAX time in December is the UTC instant 8 hours later", async () => {
    const body = regularTrip(requester.netid, provider.netid, {
      locations: { pickup: { locationType: "Airport", address: "LAX", time: "2027-12-10T09:30:00" }, dropOff: { locationType: "address", address: "Santa Monica" } },
    });
    const got = await lookup(h, requester, (await sendTrip(h, requester, body)).body.transactionId);
    expect(got.body.data.pickupDate).toBe(Date.UTC(2027, 11, 10, 9 + 8, 30) / 1000);
  });

  test("pickupDate: an explicit offset wins; coordinates give the zone; otherwise UTC", async () => {
    const at = async (pickup: Record<string, string>) =>
      (await lookup(h, requester, (await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { locations: { pickup } }))).body.transactionId)).body.data.pickupDate;
    expect(await at({ locationType: "airport", address: "LAX", time: "2027-12-10T09:30:00+01:00" })).toBe(Date.UTC(2027, 11, 10, 8, 30) / 1000);
    expect(await at({ locationType: "address", lat: "48.8566", lon: "2.3522", time: "2027-07-14T10:00:00" })).toBe(Date.UTC(2027, 6, 14, 8, 0) / 1000);
    expect(await at({ locationType: "address", address: "somewhere", time: "2027-07-14T10:00:00" })).toBe(Date.UTC(2027, 6, 14, 10, 0) / 1000);
  });

  test("luggageCount appears only when specified; a quote shows its options in fees", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    delete body.luggageCount;
    const got = await lookup(h, provider, (await sendTrip(h, requester, body)).body.transactionId);
    expect(Object.keys(got.body.data.tripPacket)).not.toContain("luggageCount");
    const q = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid));
    expect((await lookup(h, provider, q.body.transactionId)).body.data.tripPacket).toMatchObject({ reservationType: "QUOTE", status: "QUOTE", fees: [] });
  });
});

describe("GET /api/reservations", () => {
  let h2: Harness;
  let a: Party, b: Party, c: Party;
  const ids: string[] = [];

  beforeAll(async () => {
    h2 = createHarness();
    ({ requester: a, provider: b, stranger: c } = await parties(h2, "-L"));
    // a → b three times, b → a once, c → b once (a must not see that one).
    for (let i = 0; i < 3; i++) ids.push((await sendTrip(h2, a, regularTrip(a.netid, b.netid))).body.transactionId);
    ids.push((await sendTrip(h2, b, regularTrip(b.netid, a.netid))).body.transactionId);
    await sendTrip(h2, c, regularTrip(c.netid, b.netid));
    await providerUpdate(h2, b, ids[0], { status: "CONFIRMED" });
  });

  const list = (who: Party, query = "") => h2.request("GET", `/api/reservations${query}`, { headers: { authorization: `Bearer ${who.jwt}` } });


  test("the company's bookings as requester or provider, newest first, with summary fields", async () => {
    const res = await list(a);
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(4);
    expect(res.body.data.items.map((i: any) => i.transactionId)).toEqual([...ids].reverse());
    expect(res.body.data.items[0]).toEqual({
      transactionId: ids[3],
      fromConextId: b.netid,
      toConextId: a.netid,
      sourceResNo: expect.any(String),
      targetResNo: null,
      lastStatus: "BOOKING_REQUEST",
      submitDate: expect.any(Number),
      pickupDate: expect.any(Number),
      reservationType: "REGULAR",
      pickupZone: "America/New_York",
    });
  });

  test("filters by role, status and requesterResNo; pages with limit and offset", async () => {
    expect((await list(a, "?role=provider")).body.data.items.map((i: any) => i.transactionId)).toEqual([ids[3]]);
    expect((await list(a, "?role=requester")).body.data.total).toBe(3);
    expect((await list(a, "?status=CONFIRMED")).body.data.items.map((i: any) => i.transactionId)).toEqual([ids[0]]);
    const first = (await lookup(h2, a, ids[1])).body.data.sourceResNo;
    expect((await list(a, `?requesterResNo=${first}`)).body.data.items.map((i: any) => i.transactionId)).toEqual([ids[1]]);
    const page = await list(a, "?limit=2&offset=1");
    expect(page.body.data).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.body.data.items.map((i: any) => i.transactionId)).toEqual([ids[2], ids[1]]);
    expect((await list(b)).body.data.total).toBe(5);
  });

  test("out-of-range parameters are 400 naming the parameter; a platform token is not a core credential", async () => {
    for (const [q, field] of [["?limit=0", "limit"], ["?limit=101", "limit"], ["?offset=-1", "offset"], ["?role=driver", "role"], ["?status=DONE", "status"]]) {
      const res = await list(a, q);
      expect({ q, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ q, status: 400, field });
    }
    expect((await h2.request("GET", "/api/reservations", { headers: { authorization: `Bearer ${a.token}` } })).status).toBe(401);
  });
});

describe("GET /api/trip-states", () => {
  test("publishes the lifecycle without a credential", async () => {
    const res = await h.request("GET", "/api/trip-states");
    expect(res.status).toBe(200);
    const states = Object.fromEntries(res.body.data.states.map((s: any) => [s.status, s]));
    expect(states.BOOKING_REQUEST).toEqual({
      status: "BOOKING_REQUEST",
      label: "Pending",
      terminal: false,
      next: ["PENDING", "CONFIRMED", "REJECT", "FAILED", "CANCEL"],
      skipTo: ["ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"],
    });
    expect(states.CONFIRMED.skipTo).toEqual(["EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
    expect(states.CLOSE).toMatchObject({ terminal: true, next: [], skipTo: [] });
    expect(res.body.data.mainPath).toEqual(["BOOKING_REQUEST", "PENDING", "CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
    expect(res.body.data.legacy).toEqual({ ENROUTE: "EN_ROUTE", AT_LOCATION: "ON_LOCATION", ACCEPTED: "CONFIRMED" });
  });
});

describe("GET /api/reservations by pickup date", () => {
  let h3: Harness;
  let a: Party, b: Party;
  beforeAll(async () => {
    h3 = createHarness();
    ({ requester: a, provider: b } = await parties(h3, "-D"));
    for (let i = 0; i < 2; i++) await sendTrip(h3, a, regularTrip(a.netid, b.netid));
  });
  const list3 = (who: Party, query = "") => h3.request("GET", `/api/reservations${query}`, { headers: { authorization: `Bearer ${who.jwt}` } });

  test("a pickup window: Unix seconds, dates or date-times, both ends included; an unreadable bound is 400 naming it", async () => {
    const all = (await list3(a, "?limit=100")).body.data.items as Array<{ transactionId: string; pickupDate: number }>;
    const early = await sendTrip(h3, a, regularTrip(a.netid, b.netid, { locations: { pickup: { locationType: "address", address: "1 Main St", time: "2028-03-01T10:00:00Z" } } }));
    const late = await sendTrip(h3, a, regularTrip(a.netid, b.netid, { locations: { pickup: { locationType: "address", address: "1 Main St", time: "2028-03-02T23:30:00Z" } } }));
    const ids2 = (q: string) => list3(a, q).then((r) => r.body.data.items.map((i: { transactionId: string }) => i.transactionId));
    expect(await ids2("?pickupFrom=2028-03-01&pickupTo=2028-03-02")).toEqual([late.body.transactionId, early.body.transactionId]);
    expect(await ids2("?pickupFrom=2028-03-02")).toEqual([late.body.transactionId]);
    expect(await ids2(`?pickupTo=${Date.parse("2028-03-01T10:00:00Z") / 1000}&pickupFrom=2028-03-01T09:00:00-01:00`)).toEqual([early.body.transactionId]);
    expect((await list3(a, "?pickupTo=2028-03-01")).body.data.total).toBe(all.filter((x) => x.pickupDate <= Date.parse("2028-03-01T23:59:59Z") / 1000).length + 1);
    const bad = await list3(a, "?pickupFrom=soon&pickupTo=2027-13-45");
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["pickupFrom", "pickupTo"]);
  });
});
