import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../support/harness";
import { insertFleet, lookup, party, quoteTrip, regularTrip, sendTrip, type Party } from "../../support/trips";

/**
 * docs/places.md#drop-offs-and-stops through HTTP, on SQLite and PostgreSQL: a drop-off given by address is placed
 * (by the geocoder when the service has one, else at its city's centre with DROPOFF_APPROXIMATE) and priced by the
 * operator's card, not the vehicle's own minimum; a drop-off nothing places is 400 DROPOFF_NOT_LOCATED on
 * POST /api/quotes (nothing stored) and a DROPOFF_NOT_LOCATED warning on a provider QUOTE.
 */

type Json = Record<string, any>;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
const PICKUP_TIME = "2027-03-10T10:00:00";
const PARK_AVE = { lat: 40.7536, lon: -73.9767 };

/** The demo operator's way of pricing JFK → Manhattan: a flat route to Midtown, distance beyond it, the airport fee. */
const CARD = {
  currency: "USD",
  routes: [{ id: "jfk-midtown", from: { airport: "JFK" }, to: { lat: 40.758, lon: -73.9855, radiusKm: 8 }, vehTypes: ["SEDAN"], price: "84.00", bothWays: true }],
  distance: [{ id: "sedan-km", vehTypes: ["SEDAN"], base: "60.00", includedKm: 10, perKm: "2.40" }],
  surcharges: [{ id: "jfk-fee", kind: "airportPickup", name: "Airport pickup", airports: ["JFK"], amount: "15.00" }],
};
/**
 * What the card sells JFK → 200 Park Ave for (the route and the airport fee), and what was quoted while the drop-off
 * was never placed: the car's own minimum (70.00) with the airport fee.
 */
const CARD_PRICE = "99.00";
const VEHICLE_MINIMUM = "70.00";
const WITHOUT_DROP_OFF = "85.00";

/** A Photon-compatible /search on loopback that knows 200 Park Ave; `delayMs` makes it slow. */
function photon(delayMs = 0) {
  const asked: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const q = new URL(request.url).searchParams.get("q") ?? "";
      asked.push(q);
      if (delayMs) await Bun.sleep(delayMs);
      const found = /200 park ave/i.test(q);
      return Response.json({
        type: "FeatureCollection",
        features: found ? [{ type: "Feature", geometry: { type: "Point", coordinates: [PARK_AVE.lon, PARK_AVE.lat] }, properties: { name: "200 Park Avenue", countrycode: "US" } }] : [],
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/api`, asked, stop: () => server.stop(true) };
}

interface Service {
  h: Harness;
  requester: Party;
  ops: Party;
}

/** A service (with this geocoder, or none) with one operator at JFK: a sedan whose own minimum is 70.00, and the card. */
async function service(tag: string, geocoder?: { url: string; timeoutMs?: number }): Promise<Service> {
  const h = createHarness({ clock, ...(geocoder ? { geocoderUrl: geocoder.url, geocoderTimeoutMs: geocoder.timeoutMs } : {}) });
  const [requester, ops] = await Promise.all([party(h, `DP-BOOK-${tag}`, "CO"), party(h, `DP-OPS-${tag}`, "IO")]);
  await insertFleet(h, ops.netid, [
    { slug: `dp-sedan-${tag.toLowerCase()}`, type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: VEHICLE_MINIMUM, hourlyRate: "0", lat: 40.65, lon: -73.79, airports: ["JFK"] },
  ]);
  const card = await h.request("PUT", "/api/company/rates", { headers: { authorization: `Bearer ${ops.jwt}` }, body: CARD });
  expect(card.status).toBe(200);
  return { h, requester, ops };
}

const JFK_PICKUP = { locationType: "airport", address: "JFK", time: PICKUP_TIME };
/** The console's New trip drop-off: an address with its city and country, no coordinates. */
const PARK_AVE_DROP = { locationType: "address", address: "200 Park Ave", city: "New York", country: "US" };

const networkQuote = (s: Service, body: Json) => s.h.request("POST", "/api/quotes", { headers: { authorization: `Bearer ${s.requester.jwt}` }, body });
const providerQuote = (s: Service, locations: Json) =>
  sendTrip(s.h, s.requester, quoteTrip(s.requester.netid, s.ops.netid, { passengerCount: "2", luggageCount: "2", preferredVehicleType: undefined, locations }));
const codes = (warnings: Json[] | undefined) => (warnings ?? []).map((w) => w.code);

let geocoded: Service, plain: Service, slow: Service;
let geo: ReturnType<typeof photon>, slowGeo: ReturnType<typeof photon>;

beforeAll(async () => {
  geo = photon();
  slowGeo = photon(3000);
  [geocoded, plain, slow] = await Promise.all([
    service("GEO", { url: geo.url }),
    service("PLAIN"),
    service("SLOW", { url: slowGeo.url, timeoutMs: 300 }),
  ]);
}, 120_000);

afterAll(async () => {
  for (const s of [geocoded, plain, slow]) await s?.h.close();
  geo?.stop();
  slowGeo?.stop();
});

describe("JFK → 200 Park Ave, New York is priced by the operator's card (docs/places.md#drop-offs-and-stops)", () => {
  test("with a geocoder: the address is placed, the route fare and the airport fee quoted, no warning", async () => {
    const quote = await providerQuote(geocoded, { pickup: JFK_PICKUP, dropOff: PARK_AVE_DROP });
    expect(quote.status).toBe(200);
    expect(quote.body.fees[0].fee).toBe(CARD_PRICE);
    expect(quote.body.fees[0].breakdown.map((l: Json) => [l.id, l.amount])).toEqual([
      ["jfk-midtown", "84.00"],
      ["jfk-fee", "15.00"],
    ]);
    expect(codes(quote.body.warnings)).not.toContain("DROPOFF_APPROXIMATE");
    expect(geo.asked).toContain("200 Park Ave, New York, US");

    const network = await networkQuote(geocoded, { passengerCount: "2", locations: { pickup: JFK_PICKUP, dropOff: PARK_AVE_DROP } });
    expect(network.status).toBe(200);
    expect(network.body.data.options[0].fee).toBe(CARD_PRICE);
    expect(network.body.data.totalAmount).toBe(CARD_PRICE);
    expect(codes(network.body.data.warnings)).toEqual([]);
  });

  test("an address the geocoder does not know falls back to its city's centre, with DROPOFF_APPROXIMATE", async () => {
    const network = await networkQuote(geocoded, {
      passengerCount: "2",
      locations: { pickup: JFK_PICKUP, dropOff: { address: "1 Unknown Plaza", city: "New York", country: "US" } },
    });
    expect(network.status).toBe(200);
    expect(network.body.data.options[0].fee).toBe(CARD_PRICE);
    expect(network.body.data.warnings).toEqual([
      expect.objectContaining({ code: "DROPOFF_APPROXIMATE", field: "locations.dropOff", city: "New York City, NY, US" }),
    ]);
    // Booked, the quoted price holds and the booking says its drop-off was only approximate.
    const { quoteId, options } = network.body.data;
    const booked = await geocoded.h.request("POST", `/api/quotes/${quoteId}/book`, {
      headers: { authorization: `Bearer ${geocoded.requester.jwt}` },
      body: { quoteOptionId: options[0].quoteOptionId, requesterResNo: `DP-BOOK-${Date.now()}`, passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
    });
    expect(booked.status).toBe(200);
    expect(booked.body.totalAmount).toBe(CARD_PRICE);
    expect(codes(booked.body.warnings)).toEqual(["DROPOFF_APPROXIMATE"]);
  });

  test("without a geocoder: the city's centre prices it by the same route, warning DROPOFF_APPROXIMATE on both quotes", async () => {
    const quote = await providerQuote(plain, { pickup: JFK_PICKUP, dropOff: { address: "200 Park Ave, New York", city: "New York" } });
    expect(quote.status).toBe(200);
    expect(quote.body.fees[0].fee).toBe(CARD_PRICE);
    const warning = quote.body.warnings.find((w: Json) => w.code === "DROPOFF_APPROXIMATE");
    expect(warning).toMatchObject({ field: "locations.dropOff", city: "New York City, NY, US" });
    expect(warning.message).toContain("exact coordinates");
    // The stored quote keeps the warning: both reads show it.
    const read = await lookup(plain.h, plain.requester, quote.body.transactionId);
    expect(codes(read.body.data.warnings)).toContain("DROPOFF_APPROXIMATE");

    const network = await networkQuote(plain, { passengerCount: "2", locations: { pickup: JFK_PICKUP, dropOff: PARK_AVE_DROP } });
    expect(network.status).toBe(200);
    expect(network.body.data.options[0].fee).toBe(CARD_PRICE);
    expect(codes(network.body.data.warnings)).toEqual(["DROPOFF_APPROXIMATE"]);
  });

  test("a geocoder too slow to answer: the city's centre within its timeout, never a 5xx", async () => {
    const started = performance.now();
    const network = await networkQuote(slow, { passengerCount: "2", locations: { pickup: JFK_PICKUP, dropOff: PARK_AVE_DROP } });
    expect(network.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(network.body.data.options[0].fee).toBe(CARD_PRICE);
    expect(codes(network.body.data.warnings)).toEqual(["DROPOFF_APPROXIMATE"]);
    const quote = await providerQuote(slow, { pickup: JFK_PICKUP, dropOff: PARK_AVE_DROP });
    expect(quote.status).toBe(200);
    expect(quote.body.fees[0].fee).toBe(CARD_PRICE);
  });

  test("exact coordinates sent by an UPDATE re-price a booking quoted from the city's centre", async () => {
    const resNo = `DP-UPD-${Date.now()}`;
    // Another day than the other tests' pickups: the booking holds the operator's only car.
    const pickup = { ...JFK_PICKUP, time: "2027-03-11T10:00:00" };
    const trip = { passengerCount: "2", luggageCount: "2", preferredVehicleType: undefined, locations: { pickup, dropOff: PARK_AVE_DROP } };
    const quote = await sendTrip(plain.h, plain.requester, quoteTrip(plain.requester.netid, plain.ops.netid, trip, { requesterResNo: resNo }));
    expect(quote.body.fees[0].fee).toBe(CARD_PRICE);
    const booked = await sendTrip(plain.h, plain.requester, regularTrip(plain.requester.netid, plain.ops.netid, trip, { requesterResNo: resNo }));
    expect(booked.status).toBe(200);
    expect(booked.body.totalAmount).toBe(CARD_PRICE);
    // Brooklyn, outside the Midtown zone: the distance rule prices it now.
    const update = await sendTrip(plain.h, plain.requester, {
      affiliateReservation: { requesterId: plain.requester.netid, requesterResNo: resNo, action: "UPDATE" },
      locations: { pickup, dropOff: { ...PARK_AVE_DROP, address: "Grand Army Plaza, Brooklyn", lat: "40.6742", lon: "-73.9701" } },
    });
    expect(update.status).toBe(200);
    expect(update.body.totalAmount).not.toBe(CARD_PRICE);
    expect(update.body.fees[0].breakdown[0].id).toBe("sedan-km");
  });
});

describe("a drop-off nothing can place (docs/places.md#drop-offs-and-stops)", () => {
  const nowhere = { locationType: "address", address: "5 Nowhere Lane" };

  test("POST /api/quotes is 400 DROPOFF_NOT_LOCATED naming locations.dropOff, and nothing is stored", async () => {
    const before = await plain.h.count("network_quotes");
    const res = await networkQuote(plain, { passengerCount: "2", locations: { pickup: JFK_PICKUP, dropOff: nowhere } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("DROPOFF_NOT_LOCATED");
    expect(res.body.errors).toEqual([{ field: "locations.dropOff", message: expect.stringContaining("no geocoder") }]);
    expect(await plain.h.count("network_quotes")).toBe(before);
  });

  test("a provider QUOTE prices it by the rules that need no drop-off and warns DROPOFF_NOT_LOCATED", async () => {
    const res = await providerQuote(plain, { pickup: JFK_PICKUP, dropOff: nowhere });
    expect(res.status).toBe(200);
    expect(res.body.fees[0].fee).toBe(WITHOUT_DROP_OFF);
    expect(res.body.fees[0].breakdown.map((l: Json) => l.id)).toEqual(["vehicle-rate", "jfk-fee"]);
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: "DROPOFF_NOT_LOCATED", field: "locations.dropOff" }));
  });

  test("stops are placed the same way: by city approximate (named by index), one nothing places is 400 naming it", async () => {
    const byCity = await networkQuote(plain, {
      passengerCount: "2",
      locations: { pickup: JFK_PICKUP, stops: [{ address: "Penn Station", city: "Newark", state: "NJ", country: "US" }], dropOff: { ...PARK_AVE_DROP, ...PARK_AVE } },
    });
    expect(byCity.status).toBe(200);
    expect(byCity.body.data.warnings).toEqual([expect.objectContaining({ code: "DROPOFF_APPROXIMATE", field: "locations.stops[0]", city: "Newark, NJ, US" })]);
    const lost = await networkQuote(plain, { passengerCount: "2", locations: { pickup: JFK_PICKUP, stops: [{ address: "Somewhere" }], dropOff: PARK_AVE } });
    expect(lost.status).toBe(400);
    expect(lost.body.code).toBe("DROPOFF_NOT_LOCATED");
    expect(lost.body.errors.map((e: Json) => e.field)).toEqual(["locations.stops[0]"]);
  });

  test("bad input: 400 naming each field (pickup, stop, drop-off, a coordinate), nothing stored", async () => {
    const before = await plain.h.count("network_quotes");
    const unplaced = await networkQuote(plain, {
      passengerCount: "2",
      locations: { pickup: { address: "Somewhere", city: "Qwxzville", time: PICKUP_TIME }, stops: [{ address: "Somewhere else" }], dropOff: nowhere },
    });
    expect(unplaced.status).toBe(400);
    expect(unplaced.body.code).toBe("VALIDATION_FAILED");
    expect(unplaced.body.errors.map((e: Json) => e.field)).toEqual(["locations.pickup", "locations.stops[0]", "locations.dropOff"]);
    const malformed = await networkQuote(plain, {
      passengerCount: "2",
      locations: { pickup: JFK_PICKUP, dropOff: { address: "200 Park Ave", lat: "north", lon: "-73.97" }, stops: [{ city: "Newark" }] },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((e: Json) => e.field).sort()).toEqual(["locations.dropOff.lat", "locations.stops[0].address"]);
    expect(await plain.h.count("network_quotes")).toBe(before);
  });
});

describe("GET /api/places: places to choose a drop-off from (docs/places.md#drop-offs-and-stops)", () => {
  const places = (s: Service, q: string, who: Party | null = s.requester) =>
    s.h.request("GET", `/api/places?q=${encodeURIComponent(q)}`, { headers: who ? { authorization: `Bearer ${who.jwt}` } : {} });

  test("the geocoder's places for the text, then the city it names (at its centre)", async () => {
    const address = await places(geocoded, "200 Park Ave, New York");
    expect(address.status).toBe(200);
    expect(address.body.data.places).toEqual([
      { label: "200 Park Avenue", ...PARK_AVE, by: "address", country: "US" },
      expect.objectContaining({ label: "New York City, NY, US", by: "city", country: "US" }),
    ]);
    const city = await places(plain, "Boston, MA");
    expect(city.body.data.places).toEqual([expect.objectContaining({ label: "Boston, MA, US", by: "city", country: "US" })]);
    // Without a geocoder an address finds only the city it names; a text naming none, nothing (not an error).
    const [nyc] = (await places(plain, "200 Park Ave, New York, US")).body.data.places;
    expect(nyc).toMatchObject({ by: "city", label: "New York City, NY, US", city: "New York City", state: "NY", country: "US" });
    expect((await places(plain, "200 Park Ave")).body.data.places).toEqual([]);
    // A city found here, sent as the drop-off's city, state and country, is placed at the same centre by a quote.
    const quote = await networkQuote(plain, {
      passengerCount: "2",
      locations: { pickup: JFK_PICKUP, dropOff: { address: "200 Park Ave", city: nyc.city, state: nyc.state, country: nyc.country } },
    });
    expect(quote.body.data.warnings).toEqual([expect.objectContaining({ code: "DROPOFF_APPROXIMATE", city: nyc.label })]);
  });

  test("a text too short is 400 naming q; without a credential 401", async () => {
    const short = await places(plain, "x");
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ field: "q", message: expect.stringContaining("2 to 200 characters") }]);
    expect((await places(plain, "Boston", null)).status).toBe(401);
  });
});
