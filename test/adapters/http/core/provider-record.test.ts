import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * A provider's record (docs/terms.md#provider-record): offer by offer over the bookings of the last 90 days, its
 * acceptance, speed, cancellations and punctuality; its bookings with itself and offers a requester withdrew before an
 * answer do not count; `requesters` says from how many companies the figures come; null figures under 10 answered
 * offers; every offer shows within a minute; on every network quote option, and `sort: "reliability"` ranks by it.
 */

type Json = Record<string, any>;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, second: Party, steady: Party, flaky: Party, fresh: Party;
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };
const trip = (time: string) => ({ runType: "Airport", passengerCount: "2", locations: { pickup: { locationType: "airport", address: "SFO", time }, dropOff: CUPERTINO } });
const record = (who: Party, netid: string) => h.request("GET", `/api/providers/${netid}/record`, { headers: { authorization: `Bearer ${who.jwt}` } });
const cancel = (who: Party, id: string) => h.request("POST", `/Platform.svc/cancelTripByTransactionId/${id}/V1`, { headers: { token: who.token } });

/** A REGULAR booking `from` sends to `to`, picking up `ahead` seconds from now: its transactionId. */
async function book(to: Party, ahead = 2 * 86400, from = requester): Promise<{ id: string; pickup: number }> {
  const pickup = clock.now() + ahead;
  const res = await sendTrip(h, from, {
    ...trip(iso(pickup)),
    reservationType: "REGULAR",
    passengers: [{ firstName: "Ada", lastName: "King" }],
    affiliateReservation: { requesterId: from.netid, requesterResNo: nextResNo(), providerId: to.netid, action: "NEW" },
  });
  expect(res.status).toBe(200);
  return { id: res.body.transactionId, pickup };
}

async function move(who: Party, id: string, status: string) {
  const res = await providerUpdate(h, who, id, { status });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  h = createHarness({ clock });
  [requester, second, steady, flaky, fresh] = await Promise.all([
    party(h, "REC-BOOKWELL", "CO"),
    party(h, "REC-SECOND", "CO"),
    party(h, "REC-STEADY", "IO"),
    party(h, "REC-FLAKY", "IO"),
    party(h, "REC-FRESH", "IO"),
  ]);
  // The flaky provider is cheaper than the steady one, the fresh one cheapest of all.
  await insertFleet(h, steady.netid, [{ slug: "steady-sedan", type: "SEDAN", maxPassengers: 4, maxLuggage: 4, hourlyRate: "90.00" }]);
  await insertFleet(h, flaky.netid, [{ slug: "flaky-sedan", type: "SEDAN", maxPassengers: 4, maxLuggage: 4, hourlyRate: "70.00" }]);
  await insertFleet(h, fresh.netid, [{ slug: "fresh-sedan", type: "SEDAN", maxPassengers: 4, maxLuggage: 4, hourlyRate: "60.00" }]);

  // Steady: 10 bookings picking up within 12 h, each accepted (i + 1) minutes after it was sent, its chauffeur on
  // location: 8 before the pickup, 2 (picking up in 2 hours) 3 hours later — after it.
  for (let i = 0; i < 10; i++) {
    const late = i >= 8;
    const { id } = await book(steady, late ? 2 * 3600 : 6 * 3600);
    clock.advance(60 * (i + 1));
    await move(steady, id, "CONFIRMED");
    if (late) clock.advance(3 * 3600);
    await move(steady, id, "ON_LOCATION");
  }
  // Not counted for steady: 3 trips it sends itself (accepted, its chauffeur late), 2 another requester withdraws
  // before steady answers (a competitor cannot drive its figures down).
  for (let i = 0; i < 3; i++) {
    const { id } = await book(steady, 1800, steady);
    await move(steady, id, "CONFIRMED");
    clock.advance(3600);
    await move(steady, id, "ON_LOCATION");
  }
  for (let i = 0; i < 2; i++) expect((await cancel(second, (await book(steady, 86400, second)).id)).status).toBe(200);
  // Flaky: 10 bookings, 3 accepted after a minute, 7 rejected; one more from another requester not answered yet.
  for (let i = 0; i < 10; i++) {
    const { id } = await book(flaky);
    clock.advance(60);
    await move(flaky, id, i < 3 ? "CONFIRMED" : "REJECT");
  }
  await book(flaky, 2 * 86400, second);
  // Fresh: 3 bookings, all accepted.
  for (let i = 0; i < 3; i++) await move(fresh, (await book(fresh)).id, "CONFIRMED");
}, 120_000);

afterAll(async () => {
  await h.close();
});

describe("GET /api/providers/{netid}/record", () => {
  test("offer by offer: acceptance, median seconds to accept, cancellations, punctuality; self-sent and withdrawn offers left out", async () => {
    const res = await record(requester, steady.netid);
    expect(res.status).toBe(200);
    // Waits of 60…600 s: the median of ten is (300 + 360) / 2.
    expect(res.body.data).toEqual({
      offers: 10, requesters: 1, awaiting: 0, acceptedPct: 100, medianAcceptSeconds: 330, providerCancelPct: 0, onTimePct: 80, bookings: 10,
    });
  });

  test("an offer awaiting its answer counts in offers and requesters, not yet in the figures", async () => {
    const flakyRecord = await record(fresh, flaky.netid.toLowerCase());
    expect(flakyRecord.body.data).toEqual({
      offers: 11, requesters: 2, awaiting: 1, acceptedPct: 30, medianAcceptSeconds: 60, providerCancelPct: 70, onTimePct: null, bookings: 11,
    });
  });

  test("null figures under 10 answered offers; any signed-in company may ask, by JWT or platform token", async () => {
    const res = await h.request("GET", `/api/providers/${fresh.netid}/record`, { headers: { token: flaky.token } });
    expect(res.status).toBe(200);
    const none = { acceptedPct: null, medianAcceptSeconds: null, providerCancelPct: null, onTimePct: null };
    expect(res.body.data).toEqual({ offers: 3, requesters: 1, awaiting: 0, ...none, bookings: 3 });
    const idle = await party(h, "REC-IDLE", "IO");
    expect((await record(steady, idle.netid)).body.data).toEqual({ offers: 0, requesters: 0, awaiting: 0, ...none, bookings: 0 });
  });

  test("an unknown netid is 404 PROVIDER_NOT_FOUND; without a credential 401", async () => {
    const res = await record(requester, "NO-SUCH-CO");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("PROVIDER_NOT_FOUND");
    expect((await h.request("GET", `/api/providers/${steady.netid}/record`)).status).toBe(401);
  });

  test("only a company that offers rides has a record: a requester-only (CO) company answers exactly like an unknown netid (docs/security.md#the-provider-record)", async () => {
    const co = await record(steady, requester.netid);
    const unknown = await record(steady, "NO-SUCH-CO");
    expect(co.status).toBe(404);
    expect(co.body).toEqual(unknown.body);
    expect(co.body).toMatchObject({ success: false, code: "PROVIDER_NOT_FOUND" });
  });

  test("60 reads a minute per calling company, found or not; then 429 RATE_LIMITED with Retry-After, other companies unaffected", async () => {
    const [reader, other] = await Promise.all([party(h, "REC-READER", "CO"), party(h, "REC-OTHER", "CO")]);
    for (let i = 0; i < 60; i++) {
      const res = await record(reader, i % 2 === 0 ? steady.netid : `NO-SUCH-${i}`);
      expect(res.status).toBe(i % 2 === 0 ? 200 : 404);
      expect(res.headers.get("ratelimit-limit")).toBe("60");
    }
    // The platform token is the same company's budget.
    for (const res of [await record(reader, steady.netid), await h.request("GET", `/api/providers/NO-SUCH-X/record`, { headers: { token: reader.token } })]) {
      expect(res.status).toBe(429);
      expect(res.body.code).toBe("RATE_LIMITED");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await record(other, steady.netid)).status).toBe(200);
    clock.advance(60);
    expect((await record(reader, steady.netid)).status).toBe(200);
  });
});

describe("the record on network quotes", () => {
  const quote = (body: Json) =>
    h.request("POST", "/api/quotes", { headers: { token: requester.token }, body: { ...trip(iso(clock.now() + 3 * 86400)), ...body } });

  test("each option carries provider.record; by default cheapest first", async () => {
    const res = await quote({});
    expect(res.status).toBe(200);
    const options = res.body.data.options as Json[];
    expect(options.map((o) => o.provider.netid)).toEqual([fresh.netid, flaky.netid, steady.netid]);
    expect(options[2].provider.record).toEqual((await record(requester, steady.netid)).body.data);
    expect(options[2].provider.record).toMatchObject({ offers: 10, acceptedPct: 100, onTimePct: 80 });
    expect(options[0].provider.record.acceptedPct).toBeNull();
  });

  test('sort: "reliability" ranks by acceptedPct, then onTimePct, then price; anything else is 400 naming sort', async () => {
    const res = await quote({ sort: "reliability" });
    expect(res.status).toBe(200);
    expect(res.body.data.options.map((o: Json) => o.provider.netid)).toEqual([steady.netid, flaky.netid, fresh.netid]);
    const bad = await quote({ sort: "fastest" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["sort"]);
  });
});

describe("the record shows every offer within a minute", () => {
  test("an offer answered now is in the record read 60 s later (a record is kept at most that long)", async () => {
    const before = (await record(requester, steady.netid)).body.data;
    const { id } = await book(steady, 86400, second);
    await move(steady, id, "CONFIRMED");
    clock.advance(59);
    expect((await record(requester, steady.netid)).body.data).toEqual(before);
    clock.advance(1);
    expect((await record(requester, steady.netid)).body.data).toMatchObject({ offers: 11, requesters: 2, acceptedPct: 100, medianAcceptSeconds: 300 });
  });
});

describe("the served Postman collection", () => {
  test("has the record and cancel-fee routes", async () => {
    const res = await h.request("GET", "/docs/postman.json");
    expect(res.status).toBe(200);
    const paths: string[] = [];
    const walk = (items: Json[]) => {
      for (const i of items) i.item ? walk(i.item) : paths.push((i.request?.url?.path ?? []).join("/"));
    };
    walk(res.body.item);
    expect(paths).toContain("api/providers/:netid/record");
    expect(paths).toContain("api/reservation/:transactionId/cancel-fee");
  });
});
