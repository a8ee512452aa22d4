import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import card from "../../../../adapters/http/examples/rate-card.json";
import { DEMO_RATE_CARDS } from "../../../../src/demo/rates";
import { createHarness, type Harness } from "../../../support/harness";
import { insertFleet, integrate, party, quoteTrip, sendTrip, type Party } from "../../../support/trips";

/**
 * The order a rate card prices in (docs/rates.md#how-a-vehicle-is-priced), in both quote kinds — a QUOTE to one
 * provider and the network quote: an hourly hire by the hour before any route; the road through the stops for
 * distance rates and maxTripKm, a route only when its zones hold every stop (docs/rates.md#stops-the-road-runs-through-them);
 * a vehicle no rule prices whose own rates are 0 never offered; the minimum fare before the extras; the cause of
 * EXTRA_NOT_OFFERED (docs/rates.md#extras).
 */

let h: Harness;
let req: Party, ops: Party, acme: Party, short: Party, bare: Party;
const JFK_LOT = { lat: 40.65, lon: -73.79, airports: ["JFK"] };
const MIDTOWN = { lat: "40.7601", lon: "-73.9840" };
const NEWARK = { locationType: "address", address: "Newark Penn Station", lat: "40.7347", lon: "-74.1644" };
const PHILADELPHIA = { locationType: "address", address: "City Hall, Philadelphia", lat: "39.9526", lon: "-75.1635" };
const GRAND_CENTRAL = { locationType: "address", address: "Grand Central Terminal", lat: "40.7527", lon: "-73.9772" };
const cents = (amount: string) => Number(amount.replace(".", ""));
const sum = (lines: Array<{ amount: string }>) => lines.reduce((s, l) => s + cents(l.amount), 0);
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
type Option = { code: string; fee: string; breakdown: Array<{ kind: string; id?: string; code?: string; name: string; amount: string }> };

/** A trip from JFK to Times Square at noon, New York time; `over` adds members (stops, runType, extras…). */
const jfkToMidtown = (over: Record<string, unknown> = {}, stops?: unknown[]) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time: "2027-03-10T12:00:00" },
    dropOff: { locationType: "address", address: "Times Square, New York", ...MIDTOWN },
    ...(stops ? { stops } : {}),
  },
  ...over,
});
/** A daytime trip inside Queens, off every route and airport. */
const inQueens = (over: Record<string, unknown> = {}) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "address", address: "Queens", lat: "40.66", lon: "-73.80", time: "2027-03-10T12:00:00" },
    dropOff: { locationType: "address", address: "Queens", lat: "40.67", lon: "-73.80" },
  },
  ...over,
});

/** The same trip as a QUOTE to `provider` and as a network quote asking only it: the options of each. */
async function bothQuotes(provider: Party, trip: Record<string, unknown>) {
  const body = quoteTrip(req.netid, provider.netid, trip);
  delete body.preferredVehicleType;
  const single = await sendTrip(h, req, body);
  expect(single.status).toBe(200);
  const network = await h.request("POST", "/api/quotes", { headers: bearer(req), body: { ...trip, providers: [provider.netid] } });
  expect(network.status).toBe(200);
  return {
    single: { options: single.body.fees as Option[], warnings: single.body.warnings as Array<{ code: string; count?: number; message: string }> },
    network: { options: network.body.data.options as Option[], warnings: network.body.data.warnings as Array<{ code: string; count?: number; message: string }> },
  };
}
const pick = (o: Option) => ({ code: o.code, fee: o.fee, breakdown: o.breakdown });
const optionOf = (options: Option[], code: string) => options.find((o) => o.code === code);

beforeAll(async () => {
  h = createHarness();
  [req, ops, acme, short, bare] = await Promise.all([
    party(h, "RR-BOOK", "CO"),
    party(h, "RR-OPS", "IO"),
    party(h, "RR-ACME", "IO"),
    party(h, "RR-SHORT", "IO"),
    party(h, "RR-BARE", "IO"),
  ]);
  await insertFleet(h, ops.netid, [
    { slug: "rr-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT },
    { slug: "rr-suv", type: "SUV", maxPassengers: 6, maxLuggage: 6, minimumRate: "90.00", hourlyRate: "110.00", ...JFK_LOT },
    { slug: "rr-van", type: "VAN", maxPassengers: 8, maxLuggage: 8, minimumRate: "0", hourlyRate: "0", ...JFK_LOT },
    { slug: "rr-wagon", type: "WAGON", maxPassengers: 4, maxLuggage: 4, minimumRate: "40.00", hourlyRate: "0", ...JFK_LOT },
  ]);
  await insertFleet(h, acme.netid, [{ slug: "rr-acme-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT }]);
  await insertFleet(h, short.netid, [{ slug: "rr-short-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT }]);
  await insertFleet(h, bare.netid, [{ slug: "rr-bare-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT }]);
  for (const [who, body] of [[ops, card], [acme, DEMO_RATE_CARDS["ACME-LIMO"]], [short, card]] as const)
    expect((await h.request("PUT", "/api/company/rates", { headers: bearer(who), body })).status).toBe(200);
  expect((await integrate(h, short, { maxTripKm: 300 })).status).toBe(200);
});
afterAll(() => h.close());

describe("an hourly trip", () => {
  test("a 5-hour hire from JFK to Midtown is priced by the hour (390.00 on Acme's card), not by the route (110.00)", async () => {
    const hire = await bothQuotes(acme, jfkToMidtown({ runType: "HOURLY", totalTripDuration: "300" }));
    const sedan = optionOf(hire.single.options, "rr-acme-sedan")!;
    expect(pick(sedan)).toEqual({
      code: "rr-acme-sedan",
      fee: "390.00",
      breakdown: [
        { kind: "BASE", id: "acme-sedan-hour", name: "Hourly, 5 h", amount: "375.00" },
        { kind: "SURCHARGE", id: "nyc-airport-fee", name: "Airport pickup (NY airports)", amount: "15.00" },
      ],
    });
    expect(hire.network.options.map(pick)).toEqual(hire.single.options.map(pick));
    // The same road as a transfer: the route.
    const transfer = await bothQuotes(acme, jfkToMidtown());
    expect(optionOf(transfer.single.options, "rr-acme-sedan")!.fee).toBe("110.00");
    expect(optionOf(transfer.network.options, "rr-acme-sedan")!.fee).toBe("110.00");
  });

  test("runType HOURLY or a booked duration alone makes it hourly; the rate's minimum hours hold", async () => {
    // 2 booked hours of the example card's SUV rate (120.00 an hour, at least 3): 360.00 + 15.00 JFK pickup.
    const booked = await bothQuotes(ops, jfkToMidtown({ totalTripDuration: "120" }));
    expect(optionOf(booked.single.options, "rr-suv")!.breakdown[0]).toEqual({ kind: "BASE", id: "suv-hour", name: "Hourly, 3 h", amount: "360.00" });
    expect(optionOf(booked.single.options, "rr-suv")!.fee).toBe("375.00");
    expect(booked.network.options.map(pick)).toEqual(booked.single.options.map(pick));
    // runType HOURLY without a duration: the estimated hour, raised to the sedan rate's 3 hours (85.00 each).
    const hourly = await bothQuotes(ops, jfkToMidtown({ runType: "HOURLY" }));
    expect(optionOf(hourly.single.options, "rr-sedan")!.breakdown[0]).toMatchObject({ id: "sedan-hour", amount: "255.00" });
  });
});

describe("stops", () => {
  test("JFK → Newark → Philadelphia → Midtown is priced by distance along the stops, not by the flat route", async () => {
    const quotes = await bothQuotes(ops, jfkToMidtown({}, [NEWARK, PHILADELPHIA]));
    const sedan = optionOf(quotes.single.options, "rr-sedan")!;
    expect(pick(sedan)).toEqual({
      code: "rr-sedan",
      fee: "995.53",
      breakdown: [
        { kind: "BASE", id: "sedan-km", name: "Distance, 376.9 km", amount: "940.53" },
        { kind: "SURCHARGE", id: "jfk-fee", name: "Airport pickup", amount: "15.00" },
        { kind: "EXTRA", code: "EXTRA_STOP", name: "Extra stop × 2", amount: "40.00" },
      ],
    });
    expect(quotes.network.options.map(pick)).toEqual(quotes.single.options.map(pick));
    for (const o of [...quotes.single.options, ...quotes.network.options]) expect(sum(o.breakdown)).toBe(cents(o.fee));
  });

  test("a stop inside the route's zones keeps the route", async () => {
    const quotes = await bothQuotes(ops, jfkToMidtown({}, [GRAND_CENTRAL]));
    expect(optionOf(quotes.single.options, "rr-sedan")!.breakdown.map((l) => [l.id ?? l.code, l.amount])).toEqual([
      ["jfk-midtown", "95.00"],
      ["jfk-fee", "15.00"],
      ["EXTRA_STOP", "20.00"],
    ]);
    expect(quotes.network.options.map(pick)).toEqual(quotes.single.options.map(pick));
  });

  test("maxTripKm counts the road through the stops: 28 km direct is quoted, 377 km through the stops is not", async () => {
    const direct = await bothQuotes(short, jfkToMidtown());
    expect(direct.single.options.map((o) => o.code)).toEqual(["rr-short-sedan"]);
    expect(direct.network.options.map((o) => o.code)).toEqual(["rr-short-sedan"]);
    const through = await bothQuotes(short, jfkToMidtown({}, [NEWARK, PHILADELPHIA]));
    for (const quote of [through.single, through.network]) {
      expect(quote.options).toEqual([]);
      expect(quote.warnings).toContainEqual(expect.objectContaining({ code: "TRIP_TOO_LONG", count: 1 }));
      expect(quote.warnings.find((w) => w.code === "TRIP_TOO_LONG")!.message).toContain("(377 km)");
    }
  });
});

describe("never absurd, and the minimum before the extras", () => {
  test("a car no rule prices whose own rates are 0 is never offered, whatever the minimum fare (UNPRICED_VEHICLES)", async () => {
    const quotes = await bothQuotes(ops, jfkToMidtown({ extras: [{ code: "CHILD_SEAT", quantity: 1 }] }));
    for (const quote of [quotes.single, quotes.network]) {
      expect(optionOf(quote.options, "rr-van")).toBeUndefined();
      expect(quote.warnings).toContainEqual(expect.objectContaining({ code: "UNPRICED_VEHICLES", count: 1 }));
      // The others are offered, the cheapest first: the van is not ranked first at the minimum fare.
      expect(quote.options.map((o) => o.code)).toEqual(["rr-wagon", "rr-sedan", "rr-suv"]);
    }
  });

  test("the minimum fare tops up base + surcharges; a child seat adds its full 12.00", async () => {
    const plain = await bothQuotes(ops, inQueens());
    const wagon = optionOf(plain.single.options, "rr-wagon")!;
    expect(pick(wagon)).toEqual({
      code: "rr-wagon",
      fee: "45.00",
      breakdown: [
        { kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: "40.00" },
        { kind: "MINIMUM", id: "minimumFare", name: "Minimum fare", amount: "5.00" },
      ],
    });
    const seat = await bothQuotes(ops, inQueens({ extras: [{ code: "CHILD_SEAT", quantity: 1 }] }));
    expect(pick(optionOf(seat.single.options, "rr-wagon")!)).toEqual({
      code: "rr-wagon",
      fee: "57.00",
      breakdown: [
        { kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: "40.00" },
        { kind: "MINIMUM", id: "minimumFare", name: "Minimum fare", amount: "5.00" },
        { kind: "EXTRA", code: "CHILD_SEAT", name: "Child seat", amount: "12.00" },
      ],
    });
    expect(seat.network.options.map(pick)).toEqual(seat.single.options.map(pick));
    expect(plain.network.options.map(pick)).toEqual(plain.single.options.map(pick));
  });

  test("EXTRA_NOT_OFFERED says the cause: more than the card's max, an extra it lacks, no card", async () => {
    const tooMany = await bothQuotes(ops, jfkToMidtown({ extras: [{ code: "CHILD_SEAT", quantity: 4 }] }));
    for (const quote of [tooMany.single, tooMany.network]) {
      const warning = quote.warnings.find((w) => w.code === "EXTRA_NOT_OFFERED")!;
      expect(warning).toMatchObject({ codes: ["CHILD_SEAT"] });
      expect(warning.message).toContain("offers at most 3 CHILD_SEAT (4 asked)");
    }
    const lacking = await bothQuotes(ops, jfkToMidtown({ extras: [{ code: "ICE_BUCKET" }] }));
    expect(lacking.single.warnings.find((w) => w.code === "EXTRA_NOT_OFFERED")!.message).toContain("does not offer ICE_BUCKET");
    expect(lacking.network.warnings.find((w) => w.code === "EXTRA_NOT_OFFERED")!.message).toContain("does not offer ICE_BUCKET");
    const noCard = await bothQuotes(bare, jfkToMidtown({ extras: [{ code: "CHILD_SEAT" }] }));
    for (const quote of [noCard.single, noCard.network])
      expect(quote.warnings.find((w) => w.code === "EXTRA_NOT_OFFERED")!.message).toContain("has no rate card to price CHILD_SEAT");
  });
});
