import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver } from "../../../support/receiver";
import { insertFleet, integrate, lookup, parties, party, type Party, quoteTrip, regularTrip, sendTrip } from "../../../support/trips";

type Json = Record<string, any>;

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, acme: Party, rival: Party, globe: Party, yen: Party, dinar: Party, mixed: Party;
let farmIn: ReturnType<typeof startReceiver>;

const PICKUP_TIME = "2027-03-10T10:00:00";
const AT = {
  JFK: { lat: 40.6398, lon: -73.7787 },
  MANHATTAN: { lat: 40.758, lon: -73.9855 },
  // ~78 km from JFK: outside the default 50 km, inside 80 km.
  BRIDGEPORT: { lat: 41.1865, lon: -73.1952 },
  ATLANTA: { lat: 33.6407, lon: -84.4277 },
  LAX: { lat: 33.9425, lon: -118.408 },
  EWR: { lat: 40.6925, lon: -74.1687 },
  LHR: { lat: 51.47, lon: -0.4543 },
  NRT: { lat: 35.7647, lon: 140.3864 },
  SYD: { lat: -33.9461, lon: 151.1772 },
  BAH: { lat: 26.2708, lon: 50.6336 },
};

const airportPickup = (code: string) => ({ locationType: "airport", address: code, time: PICKUP_TIME });
/**
 * A QUOTE to `provider` for 2 passengers from `pickup`, without a drop-off: a drop-off in Manhattan for a pickup in
 * Tokyo would be beyond every provider's maxTripKm (TRIP_TOO_LONG, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes), and these tests are about the
 * pickup's service area and currency.
 */
function quote(provider: Party, pickup: Json, over: Json = {}) {
  return sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, { passengerCount: "2", preferredVehicleType: undefined, locations: { pickup }, ...over }));
}
const codes = (res: { body: Json }) => (res.body.fees as Json[]).map((f) => f.code).sort();
const setRadius = (who: Party, km: number) => integrate(h, who, { serviceRadiusKm: km });

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  ({ requester, provider: acme, stranger: rival } = await parties(h));
  [globe, yen, dinar, mixed] = await Promise.all([party(h, "GLOBE-CARS", "IO"), party(h, "TOKYO-HIRE", "IO"), party(h, "GULF-LIMO", "IO"), party(h, "MIXED-FLEET", "IO")]);
  farmIn = startReceiver();
  const farm = await integrate(h, acme, { deliveryUrl: `${farmIn.url}/farm-in` });
  expect(farm.status).toBe(200);
  h.services.worker.start();
  await insertFleet(h, acme.netid, [
    // Stands in Atlanta but lists JFK: serves JFK pickups wherever it stands.
    { slug: "acme-listed-jfk", maxPassengers: 4, maxLuggage: 4, ...AT.ATLANTA, airports: ["JFK", "ATL"] },
    { slug: "acme-manhattan", maxPassengers: 4, maxLuggage: 4, ...AT.MANHATTAN, airports: [] },
    { slug: "acme-bridgeport", maxPassengers: 4, maxLuggage: 4, ...AT.BRIDGEPORT, airports: [] },
    { slug: "acme-no-gps-jfk", maxPassengers: 4, maxLuggage: 4, lat: null, lon: null, airports: ["JFK"] },
    { slug: "acme-retired-jfk", maxPassengers: 4, maxLuggage: 4, ...AT.JFK, airports: ["JFK"], active: false },
    { slug: "acme-solo-jfk", maxPassengers: 1, maxLuggage: 1, ...AT.JFK, airports: ["JFK"] },
    { slug: "acme-lax", maxPassengers: 4, maxLuggage: 4, ...AT.LAX, airports: ["LAX"] },
    { slug: "acme-ewr", maxPassengers: 4, maxLuggage: 4, ...AT.EWR, airports: ["EWR"] },
  ]);
  // Another provider's cars at JFK never appear in acme's quotes.
  await insertFleet(h, rival.netid, [{ slug: "rival-jfk", maxPassengers: 4, maxLuggage: 4, ...AT.JFK, airports: ["JFK"] }]);
  // Three continents, each priced in its own currency.
  await insertFleet(h, globe.netid, [
    { slug: "globe-jfk", maxPassengers: 4, maxLuggage: 4, ...AT.JFK, airports: ["JFK"] },
    { slug: "globe-lhr", maxPassengers: 4, maxLuggage: 4, ...AT.LHR, airports: ["LHR"], currency: "GBP" },
    { slug: "globe-nrt", maxPassengers: 4, maxLuggage: 4, ...AT.NRT, airports: ["NRT"], currency: "JPY", hourlyRate: "9000" },
    { slug: "globe-syd", maxPassengers: 4, maxLuggage: 4, ...AT.SYD, airports: ["SYD"], currency: "AUD" },
  ]);
  await insertFleet(h, yen.netid, [
    { slug: "tokyo-sedan", maxPassengers: 4, maxLuggage: 4, ...AT.NRT, airports: ["NRT"], currency: "JPY", hourlyRate: "5000" },
    { slug: "tokyo-van", maxPassengers: 8, maxLuggage: 8, ...AT.NRT, airports: ["NRT"], currency: "JPY", hourlyRate: "7333" },
  ]);
  await insertFleet(h, dinar.netid, [{ slug: "gulf-sedan", maxPassengers: 4, maxLuggage: 4, ...AT.BAH, airports: ["BAH"], currency: "BHD", hourlyRate: "12.5", minimumRate: "0" }]);
  await insertFleet(h, mixed.netid, [
    { slug: "mixed-usd", maxPassengers: 4, maxLuggage: 4, ...AT.JFK, airports: ["JFK"], currency: "USD", hourlyRate: "150.00" },
    { slug: "mixed-eur-1", maxPassengers: 4, maxLuggage: 4, ...AT.JFK, airports: ["JFK"], currency: "EUR", hourlyRate: "50.00" },
    { slug: "mixed-eur-2", maxPassengers: 4, maxLuggage: 4, ...AT.LHR, airports: ["LHR"], currency: "EUR", hourlyRate: "60.00" },
    { slug: "mixed-eur-3", maxPassengers: 4, maxLuggage: 4, ...AT.LHR, airports: ["LHR"], currency: "EUR", hourlyRate: "70.00" },
    { slug: "mixed-usd-lhr", maxPassengers: 4, maxLuggage: 4, ...AT.LHR, airports: ["LHR"], currency: "USD", hourlyRate: "10.00" },
  ]);
});

afterAll(async () => {
  farmIn.stop();
  await h.close();
});

describe("a QUOTE offers only the provider's vehicles serving the pickup", () => {
  test("JFK: the vehicles listing JFK (wherever they stand, with or without a position) or within 50 km; not the far, the retired, the too small or another provider's", async () => {
    const res = await quote(acme, airportPickup("JFK"));
    expect(res.status).toBe(200);
    // Newark's airport is ~34 km from JFK: within the radius.
    expect(codes(res)).toEqual(["acme-ewr", "acme-listed-jfk", "acme-manhattan", "acme-no-gps-jfk"]);
    expect(res.body.warnings).toEqual([]);
    expect(res.body.totalAmount).toBe(res.body.fees[0].fee);
  });

  test("a radius change moves the boundary: at 80 km Bridgeport (~78 km) serves JFK, back at 50 it does not", async () => {
    expect((await setRadius(acme, 80)).status).toBe(200);
    expect(codes(await quote(acme, airportPickup("JFK")))).toContain("acme-bridgeport");
    expect((await setRadius(acme, 50)).status).toBe(200);
    expect(codes(await quote(acme, airportPickup("JFK")))).not.toContain("acme-bridgeport");
  });

  test("coordinates place a pickup without an airport: within the radius only", async () => {
    const res = await quote(acme, { locationType: "address", address: "Stamford train station", lat: "41.0465", lon: "-73.5422", time: PICKUP_TIME });
    // Stamford–Bridgeport ~ 30 km, Stamford–Manhattan ~ 48 km; the JFK-listing cars do not serve an address pickup.
    expect(codes(res)).toEqual(["acme-bridgeport", "acme-manhattan"]);
  });

  test("a city-only pickup (Newark, NJ, US) is placed through the gazetteer", async () => {
    const res = await quote(acme, { locationType: "address", address: "Penn Station", city: "Newark", state: "NJ", country: "US", time: PICKUP_TIME });
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(["acme-ewr", "acme-manhattan"]);
  });

  test("three continents: each airport's quote holds the vehicles there, in the local currency", async () => {
    const byAirport: Record<string, [string[], string]> = { JFK: [["globe-jfk"], "USD"], LHR: [["globe-lhr"], "GBP"], NRT: [["globe-nrt"], "JPY"], SYD: [["globe-syd"], "AUD"] };
    for (const [code, [expected, currency]] of Object.entries(byAirport)) {
      const res = await quote(globe, airportPickup(code));
      expect(codes(res)).toEqual(expected);
      expect(res.body.fees[0].currency).toBe(currency);
    }
  });

  test("no vehicle serves the pickup: the QUOTE is stored and delivered with no options, totalAmount null and NO_VEHICLE_NEAR_PICKUP", async () => {
    const res = await quote(acme, airportPickup("SYD"));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "QUOTE", fees: [], totalAmount: null, warnings: [{ code: "NO_VEHICLE_NEAR_PICKUP", message: expect.any(String) }] });
    const read = await lookup(h, requester, res.body.transactionId);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ lastStatus: "QUOTE", warnings: [{ code: "NO_VEHICLE_NEAR_PICKUP" }] });
    const deadline = Date.now() + 10_000;
    const mine = () => farmIn.received.find((r) => r.json?.transactionId === res.body.transactionId);
    while (!mine() && Date.now() < deadline) await Bun.sleep(20);
    const delivered = mine();
    expect(delivered?.json).toMatchObject({ reservationType: "QUOTE", fees: [] });
  });
});

describe("pickups that cannot be placed", () => {
  test("an unknown airport code: 400 UNKNOWN_AIRPORT naming locations.pickup for a QUOTE, a PICKUP_NOT_LOCATED warning for a booking", async () => {
    const refused = await quote(acme, airportPickup("XQZ"));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, code: "UNKNOWN_AIRPORT", errors: [{ field: "locations.pickup", message: expect.stringContaining("XQZ") }] });
    const booked = await sendTrip(h, requester, regularTrip(requester.netid, acme.netid, { locations: { pickup: airportPickup("XQZ") } }));
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ status: "BOOKING_REQUEST", warnings: [{ code: "PICKUP_NOT_LOCATED", field: "locations.pickup" }] });
    expect((await lookup(h, requester, booked.body.transactionId)).body.data.warnings).toEqual(booked.body.warnings);
  });

  test("nothing to place it by (an unknown city, a bare address): 400 PICKUP_NOT_LOCATED for a QUOTE; ONDEMAND is booked with the warning", async () => {
    for (const pickup of [{ address: "12 Nowhere Lane", city: "Qwzxville", country: "US", time: PICKUP_TIME }, { address: "the big hotel", time: PICKUP_TIME }]) {
      const refused = await quote(acme, pickup);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ success: false, code: "PICKUP_NOT_LOCATED", errors: [{ field: "locations.pickup" }] });
    }
    const booked = await sendTrip(h, requester, regularTrip(requester.netid, acme.netid, { reservationType: "ONDEMAND", locations: { pickup: { address: "the big hotel", time: PICKUP_TIME } } }));
    expect(booked.status).toBe(200);
    expect(booked.body.warnings).toEqual([{ code: "PICKUP_NOT_LOCATED", field: "locations.pickup", message: expect.any(String) }]);
  });

  test("a city without state or country is the most populous of its name (docs/places.md: Newark is Newark, NJ)", async () => {
    const res = await quote(acme, { address: "Main St", city: "Newark", time: PICKUP_TIME });
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(["acme-ewr", "acme-manhattan"]);
  });
});

describe("one currency per quote, in the currency's minor unit", () => {
  test("a JPY fleet: whole yen, no decimals", async () => {
    const res = await quote(yen, airportPickup("NRT"));
    // NRT → Times Square is far (a long trip): check the unit, not the amount.
    for (const f of res.body.fees) {
      expect(f.currency).toBe("JPY");
      expect(f.fee).toMatch(/^\d+$/);
    }
    const hourly = await quote(yen, airportPickup("NRT"), { totalTripDuration: "75" });
    // 1¼ h: 5000 × 1.25 = 6250; 7333 × 1.25 = 9166.25 → 9166.
    expect(hourly.body.fees.map((f: Json) => [f.code, f.fee])).toEqual([["tokyo-sedan", "6250"], ["tokyo-van", "9166"]]);
    expect(hourly.body.totalAmount).toBe("6250");
  });

  test("a BHD fleet: three decimals", async () => {
    const res = await quote(dinar, airportPickup("BAH"), { totalTripDuration: "60" });
    expect(res.body.fees.map((f: Json) => [f.fee, f.currency])).toEqual([["12.500", "BHD"]]);
    expect(res.body.totalAmount).toBe("12.500");
  });

  test("mixed currencies at a US pickup: the US dollar (local) though most serving cars price in euros; the euros counted in a warning", async () => {
    const res = await quote(mixed, airportPickup("JFK"), { totalTripDuration: "60" });
    expect(res.body.fees.map((f: Json) => [f.code, f.fee, f.currency])).toEqual([["mixed-usd", "150.00", "USD"]]);
    expect(res.body.warnings).toEqual([{ code: "OTHER_CURRENCIES_LEFT_OUT", message: expect.any(String), count: 1, currencies: ["EUR"] }]);
  });

  test("mixed currencies where the local one (GBP) is not priced: the one most serving cars use (EUR), cheapest first, never a cheaper USD car", async () => {
    const res = await quote(mixed, airportPickup("LHR"), { totalTripDuration: "60" });
    expect(res.body.fees.map((f: Json) => [f.code, f.fee, f.currency])).toEqual([["mixed-eur-2", "60.00", "EUR"], ["mixed-eur-3", "70.00", "EUR"]]);
    expect(res.body.totalAmount).toBe("60.00");
    expect(res.body.warnings).toEqual([{ code: "OTHER_CURRENCIES_LEFT_OUT", message: expect.any(String), count: 1, currencies: ["USD"] }]);
  });
});
