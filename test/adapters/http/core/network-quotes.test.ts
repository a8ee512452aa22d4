import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver } from "../../../support/receiver";
import { party, sendTrip, type Party } from "../../../support/trips";

/**
 * Network quotes through HTTP: one trip priced across the providers that would take it and serve its pickup, shown
 * only to its maker, and an option booked as an ordinary booking with its provider at the quoted price.
 */

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let maker: Party, stranger: Party, acme: Party, city: Party, closed: Party, far: Party;
const receivers = new Map<string, ReturnType<typeof startReceiver>>();

const JFK = { lat: 40.6413, lon: -73.7781 };
/** Where NQ-ACME's cars stand: about 2 km from the terminal. */
const ACME_LOT = { lat: 40.655, lon: -73.79 };

interface Car {
  slug: string;
  type?: string;
  seats?: number;
  bags?: number | null;
  minimum?: string;
  hourly: string;
  at?: { lat: number; lon: number } | null;
  airports?: string[];
  currency?: string;
}

/** Saves a provider's vehicles where the test puts them (a fresh database: each slug as given). */
async function fleet(netid: string, cars: Car[]) {
  const saved = await h.services.fleet.insertAll(
    cars.map((c) => ({
      slugBase: c.slug,
      netid,
      type: c.type ?? "SEDAN",
      name: c.slug,
      description: `${c.slug} description`,
      imageUrl: null,
      maxPassengers: c.seats ?? 4,
      maxLuggage: c.bags === undefined ? 4 : c.bags,
      lat: c.at === null ? null : (c.at ?? JFK).lat,
      lon: c.at === null ? null : (c.at ?? JFK).lon,
      airports: c.airports ?? [],
      minimumRate: c.minimum ?? "0",
      hourlyRate: c.hourly,
      currency: c.currency ?? "USD",
      active: true,
      createdAt: 0,
      updatedAt: 0,
    })),
  );
  expect(saved.map((s) => s.slug)).toEqual(cars.map((c) => c.slug));
}

const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const integrate = (who: Party, body: unknown) => h.request("PUT", "/api/company/integration", { headers: bearer(who), body });

/** The trip asked about: 3 passengers at JFK into Manhattan (priced 1 h), in the sendTrip shape without a provider. */
const trip = (over: Record<string, unknown> = {}) => ({
  passengerCount: "3",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time: "2027-03-15T08:00:00" },
    dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
  },
  ...over,
});

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [maker, stranger, acme, city, closed, far] = await Promise.all([
    party(h, "NQ-BOOKWELL", "CO"),
    party(h, "NQ-OTHER", "CO"),
    party(h, "NQ-ACME", "IO"),
    party(h, "NQ-CITY", "IO"),
    party(h, "NQ-CLOSED", "IO"),
    party(h, "NQ-FAR", "IO"),
  ]);
  for (const p of [acme, city, closed, far]) {
    const rx = startReceiver();
    receivers.set(p.netid, rx);
    expect((await integrate(p, { deliveryUrl: `${rx.url}/farm-in`, luggage: "native" })).status).toBe(200);
  }
  // NQ-CLOSED takes trips only from its partners; the maker is none.
  expect((await integrate(closed, { acceptTripsFrom: "partners" })).status).toBe(200);
  // NQ-ACME: seven cars at JFK (more than the per-provider cap), one too small, one 80 km away (outside its 50 km).
  await fleet(acme.netid, [
    { slug: "acme-1", at: ACME_LOT, hourly: "60.00" },
    { slug: "acme-2", at: ACME_LOT, hourly: "70.00" },
    { slug: "acme-3", at: ACME_LOT, hourly: "80.00" },
    { slug: "acme-4", at: ACME_LOT, hourly: "90.00" },
    { slug: "acme-5", at: ACME_LOT, hourly: "100.00" },
    { slug: "acme-6", at: ACME_LOT, hourly: "110.00" },
    { slug: "acme-7", at: ACME_LOT, hourly: "120.00" },
    { slug: "acme-tiny", at: ACME_LOT, hourly: "10.00", seats: 2 },
    { slug: "acme-far", hourly: "20.00", at: { lat: 41.35, lon: -73.78 } },
  ]);
  // NQ-CITY: as cheap as acme-2 but nearer; a car without a position that lists JFK; a dear car in EUR (kept, ranked by its value: docs/fx.md#what-a-network-quote-shows).
  await fleet(city.netid, [
    { slug: "city-near", hourly: "70.00" },
    { slug: "city-listed", hourly: "65.00", at: null, airports: ["JFK"] },
    { slug: "city-euro", hourly: "500.00", currency: "EUR" },
  ]);
  await fleet(closed.netid, [{ slug: "closed-cheap", hourly: "1.00" }]);
  // NQ-FAR serves Heathrow only.
  await fleet(far.netid, [{ slug: "far-lhr", hourly: "2.00", at: { lat: 51.47, lon: -0.4543 }, airports: ["LHR"] }]);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  for (const rx of receivers.values()) rx.stop();
  await h.close();
});

async function quote(who: Party = maker, body: unknown = trip(), headers: Record<string, string> = bearer(who)) {
  return h.request("POST", "/api/quotes", { headers, body });
}

describe("POST /api/quotes", () => {
  test("prices the trip across the providers that take it and serve the pickup: cheapest first, then nearest, at most 5 a provider, every currency", async () => {
    const res = await quote();
    expect(res.status).toBe(200);
    const { data } = res.body;
    expect(data.currency).toBe("USD");
    const ids = data.options.map((o: { quoteOptionId: string }) => o.quoteOptionId);
    expect(ids).toEqual([
      "NQ-ACME:acme-1",
      "NQ-CITY:city-listed",
      "NQ-CITY:city-near",
      "NQ-ACME:acme-2",
      "NQ-ACME:acme-3",
      "NQ-ACME:acme-4",
      "NQ-ACME:acme-5",
      "NQ-CITY:city-euro",
    ]);
    expect(data.options.map((o: { fee: string }) => o.fee)).toEqual(["60.00", "65.00", "70.00", "70.00", "80.00", "90.00", "100.00", "500.00"]);
    expect(data.totalAmount).toBe("60.00");
    const first = data.options[0];
    expect(first).toMatchObject({ provider: { netid: "NQ-ACME", name: expect.stringContaining("Test Company") }, code: "acme-1", vehType: "SEDAN", passengerCount: "4", luggageCount: "4", currency: "USD", images: [] });
    expect(first.nearestKm).toBeCloseTo(1.8, 0);
    // No position: placed by the airport it lists.
    expect(data.options[1].nearestKm).toBe(0);
    // Equal fees: the nearer first.
    expect(data.options[2].nearestKm).toBeLessThan(data.options[3].nearestKm);
    // Kept in its own currency (no display currency asked: nothing shown converted); the shipped FX table is old.
    expect(data.options[7]).toMatchObject({ fee: "500.00", currency: "EUR" });
    expect(data.options[7].converted).toBeUndefined();
    expect(data.warnings).toEqual([expect.objectContaining({ code: "FX_RATES_STALE", rateDate: "2024-06-28" })]);
    expect(Date.parse(data.validUntil) / 1000).toBe(clock.now() + 24 * 3600);
    // Nothing reaches any provider for a quote.
    await Bun.sleep(200);
    for (const rx of receivers.values()) expect(rx.received).toHaveLength(0);
  });

  test("providers narrows, partnersOnly keeps partners only; the platform token is accepted too", async () => {
    const narrowed = await quote(maker, { ...trip(), providers: ["nq-city"] }, { token: maker.token });
    expect(narrowed.status).toBe(200);
    expect(new Set(narrowed.body.data.options.map((o: { provider: { netid: string } }) => o.provider.netid))).toEqual(new Set(["NQ-CITY"]));
    const partners = await quote(maker, { ...trip(), partnersOnly: true });
    expect(partners.body.data.options).toEqual([]);
    expect(partners.body.data.currency).toBeNull();
    expect(partners.body.data.warnings.map((w: { code: string }) => w.code)).toEqual(["NO_VEHICLE_NEAR_PICKUP"]);
  });

  test("a pickup no provider serves: no options and NO_VEHICLE_NEAR_PICKUP; a party no vehicle seats: the same", async () => {
    const lonely = await quote(maker, trip({ locations: { pickup: { locationType: "airport", address: "SYD", time: "2027-03-15T08:00:00" } } }));
    expect(lonely.status).toBe(200);
    expect(lonely.body.data.options).toEqual([]);
    expect(lonely.body.data.warnings[0].code).toBe("NO_VEHICLE_NEAR_PICKUP");
    const crowd = await quote(maker, trip({ passengerCount: "40" }));
    expect(crowd.body.data.options).toEqual([]);
  });

  test("providers[] answers the same for a registered netid that serves nothing and one nobody holds (no oracle, issue 37 N7)", async () => {
    const strip = (body: { data: Record<string, unknown> }) => ({ ...body, data: { ...body.data, quoteId: undefined, validUntil: undefined } });
    const known = await quote(maker, { ...trip(), providers: [stranger.netid] });
    const unknown = await quote(maker, { ...trip(), providers: ["NQ-NOBODY-AT-ALL"] });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(strip(unknown.body)).toEqual(strip(known.body));
    expect(unknown.body.data.options).toEqual([]);
    expect(unknown.text).not.toContain("NQ-NOBODY-AT-ALL");
  });

  test("bad input: 400 naming each field (providerId sent, a providers entry that is no netid, unknown airport, no passengerCount)", async () => {
    const res = await quote(maker, { ...trip({ passengerCount: "" }), affiliateReservation: { providerId: "NQ-ACME" }, providers: ["not a netid!"] });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["affiliateReservation.providerId", "passengerCount", "providers[0]"]);
    const unknown = await quote(maker, trip({ locations: { pickup: { locationType: "airport", address: "XQZ", time: "2027-03-15T08:00:00" } } }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe("locations.pickup");
    expect((await h.request("POST", "/api/quotes", { body: trip() })).status).toBe(401);
  });
});

describe("a network quote is its maker's", () => {
  test("the maker reads it back (JWT or token); anyone else, and an unknown id, get the same 404", async () => {
    const made = (await quote()).body.data;
    const mine = await h.request("GET", `/api/quotes/${made.quoteId}`, { headers: { token: maker.token } });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual(made);
    const theirs = await h.request("GET", `/api/quotes/${made.quoteId}`, { headers: bearer(stranger) });
    const nobody = await h.request("GET", `/api/quotes/${crypto.randomUUID()}`, { headers: bearer(stranger) });
    for (const res of [theirs, nobody]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: "QUOTE_NOT_FOUND" });
    }
    const book = await h.request("POST", `/api/quotes/${made.quoteId}/book`, {
      headers: bearer(stranger),
      body: { quoteOptionId: made.options[0].quoteOptionId, requesterResNo: "STRANGER-1", passengers: [{ firstName: "Eve", lastName: "Stone" }] },
    });
    expect(book.status).toBe(404);
    expect(await h.count("bookings")).toBe(0);
  });
});

describe("booking an option", () => {
  test("creates one booking with that provider at the quoted price, delivered to it only; booking again answers the same booking", async () => {
    const made = (await quote()).body.data;
    const option = made.options.find((o: { code: string }) => o.code === "city-near");
    const body = { quoteOptionId: option.quoteOptionId, requesterResNo: "NQ-RES-1", passengers: [{ firstName: "Grace", lastName: "Hopper" }], specialInstructions: "Door 4" };
    const before = await h.count("bookings");
    const booked = await h.request("POST", `/api/quotes/${made.quoteId}/book`, { headers: bearer(maker), body });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ success: true, status: "BOOKING_REQUEST", totalAmount: option.fee });
    expect(booked.body.fees).toEqual([expect.objectContaining({ code: "city-near", fee: option.fee, currency: "USD" })]);
    const again = await h.request("POST", `/api/quotes/${made.quoteId}/book`, { headers: { token: maker.token }, body });
    expect(again.status).toBe(200);
    expect(again.body.transactionId).toBe(booked.body.transactionId);
    expect(await h.count("bookings")).toBe(before + 1);

    const read = await h.request("GET", `/api/reservation/${booked.body.transactionId}`, { headers: bearer(city) });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ fromConextId: maker.netid, toConextId: city.netid, sourceResNo: "NQ-RES-1" });
    expect(read.body.data.tripPacket).toMatchObject({ reservationType: "REGULAR", passengerCount: "3", specialInstructions: "Door 4", totalAmount: option.fee });
    expect(read.body.data.tripPacket.changeLogs[0].changeDesc).toContain(`network quote ${made.quoteId}, option city-near at ${option.fee} USD`);

    const [delivered] = await receivers.get(city.netid)!.waitFor(1);
    expect(delivered.headers["x-tripswitch-event-type"]).toBe("trip.new");
    expect(delivered.json).toMatchObject({ transactionId: booked.body.transactionId, totalAmount: option.fee, reservationType: "REGULAR" });
    expect(delivered.json.fees).toEqual([expect.objectContaining({ code: "city-near", fee: option.fee })]);
    await Bun.sleep(300);
    expect(receivers.get(city.netid)!.received).toHaveLength(1);
    for (const p of [acme, closed, far]) expect(receivers.get(p.netid)!.received).toHaveLength(0);
  });

  test("sendTrip NEW REGULAR with quoteId and fees[0].code books the same way; a changed trip is 409, a wrong code 400", async () => {
    const made = (await quote()).body.data;
    const option = made.options.find((o: { code: string }) => o.code === "acme-3");
    const base = {
      ...trip(),
      reservationType: "REGULAR",
      passengers: [{ firstName: "Ada", lastName: "King" }],
      quoteId: made.quoteId,
      fees: [{ code: "acme-3" }],
      affiliateReservation: { requesterId: maker.netid, requesterResNo: "NQ-RES-2", providerId: acme.netid, action: "NEW" },
    };
    const res = await sendTrip(h, maker, base);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "BOOKING_REQUEST", totalAmount: option.fee });
    const moved = await sendTrip(h, maker, { ...base, passengerCount: "2", affiliateReservation: { ...base.affiliateReservation, requesterResNo: "NQ-RES-3" } });
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ code: "QUOTE_TRIP_MISMATCH", fields: ["passengerCount"] });
    const wrong = await sendTrip(h, maker, { ...base, fees: [{ code: "city-near" }], affiliateReservation: { ...base.affiliateReservation, requesterResNo: "NQ-RES-4" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.map((e: { field: string }) => e.field)).toEqual(["fees[0].code"]);
  });

  test("an unknown option is 400, another priced field 409 QUOTE_TRIP_MISMATCH; after validUntil 409 QUOTE_EXPIRED, while a repeat still answers its booking", async () => {
    const made = (await quote()).body.data;
    const url = `/api/quotes/${made.quoteId}/book`;
    const passengers = [{ firstName: "Alan", lastName: "Turing" }];
    const unknown = await h.request("POST", url, { headers: bearer(maker), body: { quoteOptionId: "NQ-ACME:nope", requesterResNo: "NQ-RES-5", passengers } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual(["quoteOptionId"]);
    const priced = await h.request("POST", url, { headers: bearer(maker), body: { quoteOptionId: made.options[0].quoteOptionId, requesterResNo: "NQ-RES-5", passengers, passengerCount: "9" } });
    expect(priced.status).toBe(409);
    expect(priced.body).toMatchObject({ code: "QUOTE_TRIP_MISMATCH", quoteId: made.quoteId });
    expect(priced.body.errors.map((e: { field: string }) => e.field)).toEqual(["passengerCount"]);

    const first = { quoteOptionId: made.options[0].quoteOptionId, requesterResNo: "NQ-RES-6", passengers };
    const booked = await h.request("POST", url, { headers: bearer(maker), body: first });
    expect(booked.status).toBe(200);
    clock.advance(24 * 3600 + 1);
    try {
      const late = await h.request("POST", url, { headers: bearer(maker), body: { ...first, requesterResNo: "NQ-RES-7" } });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ success: false, code: "QUOTE_EXPIRED" });
      const repeat = await h.request("POST", url, { headers: bearer(maker), body: first });
      expect(repeat.status).toBe(200);
      expect(repeat.body.transactionId).toBe(booked.body.transactionId);
    } finally {
      clock.advance(-(24 * 3600 + 1));
    }
  });
});
