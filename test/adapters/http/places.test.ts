import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../support/harness";
import { insertFleet, parties, party, quoteTrip, sendTrip, type Party } from "../../support/trips";

/**
 * docs/places.md: cities as people name them — in a QUOTE's pickup, in the network quote and as fleet search's
 * centre — and every fleet search item carries its rates' currency. Runs on SQLite and on PostgreSQL.
 */

type Json = Record<string, any>;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, acme: Party, london: Party;

const PICKUP_TIME = "2027-03-10T10:00:00";
const AT = {
  MANHATTAN: { lat: 40.758, lon: -73.9855 },
  BOSTON: { lat: 42.3601, lon: -71.0589 },
  MUNICH: { lat: 48.1372, lon: 11.5756 },
  COLOGNE: { lat: 50.9375, lon: 6.9603 },
  SPRINGFIELD_MO: { lat: 37.209, lon: -93.2923 },
  LONDON: { lat: 51.5072, lon: -0.1276 },
};

const cityPickup = (city: string, more: Json = {}) => ({ locationType: "address", address: "Main entrance", city, ...more, time: PICKUP_TIME });
function quote(pickup: Json) {
  return sendTrip(h, requester, quoteTrip(requester.netid, acme.netid, { passengerCount: "2", preferredVehicleType: undefined, locations: { pickup } }));
}
const codes = (res: { body: Json }) => (res.body.fees as Json[]).map((f) => f.code).sort();
const warningCodes = (warnings: Json[] | undefined) => (warnings ?? []).map((w) => w.code);
const search = (who: Party, query: string) => h.request("GET", `/api/search/fleet?${query}`, { headers: { authorization: `Bearer ${who.jwt}` } });

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider: acme } = await parties(h, "-PL"));
  london = await party(h, "LONDON-CARS-PL", "IO");
  await insertFleet(h, acme.netid, [
    { slug: "acme-manhattan", maxPassengers: 4, maxLuggage: 4, ...AT.MANHATTAN, airports: [] },
    { slug: "acme-boston", maxPassengers: 4, maxLuggage: 4, ...AT.BOSTON, airports: [] },
    { slug: "acme-munich", maxPassengers: 4, maxLuggage: 4, ...AT.MUNICH, airports: [], currency: "EUR" },
    { slug: "acme-cologne", maxPassengers: 4, maxLuggage: 4, ...AT.COLOGNE, airports: [], currency: "EUR" },
    { slug: "acme-springfield", maxPassengers: 4, maxLuggage: 4, ...AT.SPRINGFIELD_MO, airports: [] },
  ]);
  await insertFleet(h, london.netid, [
    { slug: "london-exec", maxPassengers: 3, maxLuggage: 3, ...AT.LONDON, airports: [], currency: "GBP", minimumRate: "60.00", hourlyRate: "55.00" },
  ]);
  await h.indexed();
}, 120_000);

afterAll(() => h?.close());

describe("a QUOTE's pickup city, as a person names it (docs/places.md)", () => {
  test('"New York", US is New York City', async () => {
    const res = await quote(cityPickup("New York", { country: "US" }));
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(["acme-manhattan"]);
    expect(warningCodes(res.body.warnings)).not.toContain("PICKUP_CITY_AMBIGUOUS");
  });

  test('"Boston", US without a state is Boston, MA (the most populous)', async () => {
    const res = await quote(cityPickup("boston", { country: "US" }));
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(["acme-boston"]);
    expect(warningCodes(res.body.warnings)).not.toContain("PICKUP_CITY_AMBIGUOUS");
  });

  test("native and alternate names, accents and case: München, DE = Munich; KÖLN = Cologne; Cologne, Germany", async () => {
    const munich = await quote(cityPickup("München", { country: "DE" }));
    expect(munich.status).toBe(200);
    expect(codes(munich)).toEqual(["acme-munich"]);
    const koeln = await quote(cityPickup("KÖLN"));
    expect(codes(koeln)).toEqual(["acme-cologne"]);
    const cologne = await quote(cityPickup("Cologne", { country: "Germany" }));
    expect(codes(cologne)).toEqual(["acme-cologne"]);
  });

  test("a state narrows the city: Munich in Bavaria (BY), Boston, Massachusetts", async () => {
    expect(codes(await quote(cityPickup("Munich", { state: "BY", country: "DE" })))).toEqual(["acme-munich"]);
    expect(codes(await quote(cityPickup("Boston", { state: "Massachusetts", country: "US" })))).toEqual(["acme-boston"]);
  });

  test("an ambiguous city: the most populous is chosen, and PICKUP_CITY_AMBIGUOUS names it", async () => {
    const res = await quote(cityPickup("Springfield", { country: "US" }));
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(["acme-springfield"]);
    const warning = (res.body.warnings as Json[]).find((w) => w.code === "PICKUP_CITY_AMBIGUOUS");
    expect(warning).toMatchObject({ code: "PICKUP_CITY_AMBIGUOUS", field: "locations.pickup.city", city: "Springfield, MO, US" });
    expect(warning!.message).toContain("Springfield, MO, US");
    // With the state, there is nothing to warn of.
    const named = await quote(cityPickup("Springfield", { state: "MO", country: "US" }));
    expect(warningCodes(named.body.warnings)).not.toContain("PICKUP_CITY_AMBIGUOUS");
  });

  test("an unknown city: 400 naming locations.pickup; a booking is taken with PICKUP_NOT_LOCATED", async () => {
    const res = await quote(cityPickup("Qwxzville", { country: "US" }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("PICKUP_NOT_LOCATED");
    expect(JSON.stringify(res.body)).toContain("locations.pickup");
  });
});

describe("POST /api/quotes places a city pickup the same way", () => {
  const ask = (pickup: Json) =>
    h.request("POST", "/api/quotes", { headers: { authorization: `Bearer ${requester.jwt}` }, body: { passengerCount: "2", locations: { pickup } } });

  test('"New York", US finds the Manhattan car; Springfield warns PICKUP_CITY_AMBIGUOUS', async () => {
    const ny = await ask(cityPickup("New York", { country: "US" }));
    expect(ny.status).toBe(200);
    expect(ny.body.data.options.map((o: Json) => o.quoteOptionId)).toEqual([`${acme.netid}:acme-manhattan`]);
    const spring = await ask(cityPickup("Springfield", { country: "US" }));
    expect(spring.status).toBe(200);
    expect(spring.body.data.warnings).toContainEqual(expect.objectContaining({ code: "PICKUP_CITY_AMBIGUOUS", city: "Springfield, MO, US" }));
  });
});

describe("GET /api/search/fleet with a city centre (docs/places.md)", () => {
  test("city (+ state, country) is a centre: Boston, US; München; every item carries its rates' currency", async () => {
    const boston = await search(requester, "city=Boston&country=US&radius_km=20");
    expect(boston.status).toBe(200);
    expect(boston.body.data.items.map((i: Json) => i.slug)).toEqual(["acme-boston"]);
    expect(boston.body.data.items[0].currency).toBe("USD");
    const munich = await search(requester, `city=${encodeURIComponent("München")}&radius_km=20`);
    expect(munich.body.data.items.map((i: Json) => [i.slug, i.currency])).toEqual([["acme-munich", "EUR"]]);
  });

  test("a GBP fleet shows GBP on its items (the JSON the fast path writes and the Elysia route agree)", async () => {
    const res = await search(requester, "city=London&country=GB&radius_km=10");
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([expect.objectContaining({ slug: "london-exec", minimum_rate: 60, hourly_rate: 55, currency: "GBP" })]);
    const byPosition = await search(requester, `lat=${AT.LONDON.lat}&lon=${AT.LONDON.lon}&radius_km=10`);
    expect(byPosition.body.data.items[0].currency).toBe("GBP");
  });

  test("an unknown city is 400 naming city; state without city is 400; an ambiguous city warns", async () => {
    const unknown = await search(requester, "city=Qwxzville&country=US");
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ field: "city" }));
    const stateOnly = await search(requester, "state=MA");
    expect(stateOnly.status).toBe(400);
    expect(stateOnly.body.errors).toContainEqual(expect.objectContaining({ field: "city" }));
    const spring = await search(requester, "city=Springfield&country=US&radius_km=20");
    expect(spring.status).toBe(200);
    expect(spring.body.data.items.map((i: Json) => i.slug)).toEqual(["acme-springfield"]);
    expect(spring.body.data.warnings).toContainEqual(expect.objectContaining({ code: "PICKUP_CITY_AMBIGUOUS", netid: "", city: "Springfield, MO, US" }));
  });
});
