import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import card from "../../../../adapters/http/examples/rate-card.json";
import { createHarness, type Harness } from "../../../support/harness";
import { insertFleet, lookup, party, quoteTrip, sendTrip, type Party } from "../../../support/trips";

/** A QUOTE priced with the provider's rate card (docs/rates.md#how-a-vehicle-is-priced, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes): precedence, surcharges, extras, breakdown. */

let h: Harness;
let req: Party, ops: Party, plain: Party;
const JFK_LOT = { lat: 40.65, lon: -73.79 };
const MIDTOWN = { lat: "40.7601", lon: "-73.9840" };
const sum = (lines: Array<{ amount: string }>) => lines.reduce((s, l) => s + Math.round(Number(l.amount) * 100), 0);

beforeAll(async () => {
  h = createHarness();
  [req, ops, plain] = await Promise.all([party(h, "RQ-BOOK", "CO"), party(h, "RQ-OPS", "IO"), party(h, "RQ-PLAIN", "IO")]);
  const at = { ...JFK_LOT, airports: ["JFK"] };
  await insertFleet(h, ops.netid, [
    { slug: "rq-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...at },
    { slug: "rq-suv", type: "SUV", maxPassengers: 6, maxLuggage: 6, minimumRate: "90.00", hourlyRate: "110.00", ...at },
    { slug: "rq-van", type: "VAN", maxPassengers: 8, maxLuggage: 8, minimumRate: "0", hourlyRate: "0", ...at },
  ]);
  await insertFleet(h, plain.netid, [
    { slug: "rq-plain", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...at },
    { slug: "rq-free", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "0", hourlyRate: "0", ...at },
  ]);
  expect((await h.request("PUT", "/api/company/rates", { headers: { authorization: `Bearer ${ops.jwt}` }, body: card })).status).toBe(200);
});
afterAll(() => h.close());

const jfkToMidtown = (provider: string, time: string, over: Record<string, unknown> = {}) =>
  quoteTrip(req.netid, provider, {
    passengerCount: "2",
    preferredVehicleType: undefined,
    locations: {
      pickup: { locationType: "airport", address: "JFK", time },
      dropOff: { locationType: "address", address: "Times Square, New York", ...MIDTOWN },
    },
    ...over,
  });

describe("a QUOTE priced with a rate card", () => {
  test("route fare, airport pickup, night surcharge in the pickup's time zone and an extra; lines sum to the fee", async () => {
    const res = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-03-10T23:30:00", { extras: [{ code: "CHILD_SEAT", quantity: 1 }] }));
    expect(res.status).toBe(200);
    const sedan = res.body.fees.find((f: { code: string }) => f.code === "rq-sedan");
    // 95.00 route + 15.00 JFK pickup + 20% of 95.00 at night + 12.00 child seat.
    expect(sedan.fee).toBe("141.00");
    expect(sedan.breakdown).toEqual([
      { kind: "BASE", id: "jfk-midtown", name: "Route fare", amount: "95.00" },
      { kind: "SURCHARGE", id: "jfk-fee", name: "Airport pickup", amount: "15.00" },
      { kind: "SURCHARGE", id: "night", name: "Night surcharge", amount: "19.00" },
      { kind: "EXTRA", code: "CHILD_SEAT", name: "Child seat", amount: "12.00" },
    ]);
    for (const f of res.body.fees) expect(sum(f.breakdown)).toBe(Math.round(Number(f.fee) * 100));
    // The VAN has no rate of its type and its own rates are 0: no price, never offered at the minimum fare.
    expect(res.body.fees.map((f: { code: string }) => f.code)).not.toContain("rq-van");
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: "UNPRICED_VEHICLES", count: 1 }));
  });

  test("the Christmas Eve trip: 23:30 on 12-24 adds the holidays date surcharge, 50 % of the base, to the night's: 176.50", async () => {
    const eve = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-12-24T23:30:00"));
    expect(eve.status).toBe(200);
    const sedan = eve.body.fees.find((f: { code: string }) => f.code === "rq-sedan");
    expect(sedan.fee).toBe("176.50");
    expect(sedan.breakdown).toEqual([
      { kind: "BASE", id: "jfk-midtown", name: "Route fare", amount: "95.00" },
      { kind: "SURCHARGE", id: "jfk-fee", name: "Airport pickup", amount: "15.00" },
      { kind: "SURCHARGE", id: "night", name: "Night surcharge", amount: "19.00" },
      { kind: "SURCHARGE", id: "holidays", name: "Date surcharge", amount: "47.50" },
    ]);
    // The same in the network quote.
    const network = await h.request("POST", "/api/quotes", {
      headers: { authorization: `Bearer ${req.jwt}` },
      body: { passengerCount: "2", locations: jfkToMidtown(ops.netid, "2027-12-24T23:30:00").locations, providers: [ops.netid] },
    });
    expect(network.status).toBe(200);
    const option = network.body.data.options.find((o: { code: string }) => o.code === "rq-sedan");
    expect({ fee: option.fee, breakdown: option.breakdown }).toEqual({ fee: sedan.fee, breakdown: sedan.breakdown });
  });

  test("a daytime trip has no night line; an hourly trip takes the hourly rate with its minimum", async () => {
    const day = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-03-10T12:00:00"));
    expect(day.body.fees.find((f: { code: string }) => f.code === "rq-sedan").fee).toBe("110.00");
    const hourly = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-03-10T12:00:00", { runType: "HOURLY", totalTripDuration: "120" }));
    const suv = hourly.body.fees.find((f: { code: string }) => f.code === "rq-suv");
    // The hourly rate comes before the route: suv-hour 120.00 × its 3 minimum hours + 15.00 (not the route's 135.00 + 15.00).
    expect(suv.fee).toBe("375.00");
    expect(suv.breakdown[0]).toEqual({ kind: "BASE", id: "suv-hour", name: "Hourly, 3 h", amount: "360.00" });
  });

  test("distance rate off the routes; minimum fare tops up", async () => {
    const res = await sendTrip(
      h,
      req,
      quoteTrip(req.netid, ops.netid, {
        passengerCount: "2",
        locations: {
          pickup: { locationType: "address", address: "Queens", lat: "40.66", lon: "-73.80", time: "2027-03-10T12:00:00" },
          dropOff: { locationType: "address", address: "Queens", lat: "40.67", lon: "-73.80" },
        },
      }),
    );
    const sedan = res.body.fees.find((f: { code: string }) => f.code === "rq-sedan");
    expect(sedan.breakdown[0]).toMatchObject({ kind: "BASE", id: "sedan-km", amount: "60.00" });
    expect(sedan.fee).toBe("60.00");
  });

  test("a provider whose card lacks an asked extra (or without a card) is left out: EXTRA_NOT_OFFERED", async () => {
    const res = await sendTrip(h, req, jfkToMidtown(plain.netid, "2027-03-10T12:00:00", { extras: [{ code: "CHILD_SEAT" }] }));
    expect(res.body.fees).toEqual([]);
    expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: "EXTRA_NOT_OFFERED", codes: ["CHILD_SEAT"] }));
    const tooMany = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-03-10T12:00:00", { extras: [{ code: "CHILD_SEAT", quantity: 4 }] }));
    expect(tooMany.body.warnings).toContainEqual(expect.objectContaining({ code: "EXTRA_NOT_OFFERED", codes: ["CHILD_SEAT"] }));
    // The warning says why: the card offers at most 3.
    expect(tooMany.body.warnings.find((w: { code: string }) => w.code === "EXTRA_NOT_OFFERED").message).toContain("offers at most 3 CHILD_SEAT");
  });

  test("GNet meetAndGreet asks MEET_AND_GREET; bad extras are 400 naming each field", async () => {
    const body = jfkToMidtown(ops.netid, "2027-03-10T12:00:00");
    body.locations.pickup.meetAndGreet = "True";
    const res = await sendTrip(h, req, body);
    const sedan = res.body.fees.find((f: { code: string }) => f.code === "rq-sedan");
    expect(sedan.breakdown).toContainEqual({ kind: "EXTRA", code: "MEET_AND_GREET", name: "Meet & greet with name sign", amount: "25.00" });
    const bad = await sendTrip(h, req, jfkToMidtown(ops.netid, "2027-03-10T12:00:00", { extras: [{ code: "" }, { code: "CHILD_SEAT", quantity: 0 }] }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["extras[0].code", "extras[1].quantity"]);
  });

  test("without a card every option carries its one vehicle-rate line; a booked option keeps its breakdown", async () => {
    const quote = await sendTrip(h, req, jfkToMidtown(plain.netid, "2027-03-10T12:00:00"));
    expect(quote.body.fees[0].breakdown).toEqual([{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: quote.body.fees[0].fee }]);
    // A vehicle whose rates are 0 is never offered at 0.
    expect(quote.body.fees.map((f: { code: string }) => f.code)).toEqual(["rq-plain"]);
    expect(quote.body.warnings).toContainEqual(expect.objectContaining({ code: "UNPRICED_VEHICLES", count: 1 }));
    const body = jfkToMidtown(ops.netid, "2027-03-10T23:30:00");
    expect((await sendTrip(h, req, body)).status).toBe(200);
    const booked = await sendTrip(h, req, { ...body, reservationType: "REGULAR", fees: [{ code: "rq-sedan" }] });
    expect(booked.status).toBe(200);
    const read = await lookup(h, req, booked.body.transactionId);
    expect(booked.body.fees[0].breakdown.map((l: { kind: string }) => l.kind)).toEqual(["BASE", "SURCHARGE", "SURCHARGE"]);
    expect(read.body.data.tripPacket.fees[0].breakdown.map((l: { kind: string }) => l.kind)).toEqual(["BASE", "SURCHARGE", "SURCHARGE"]);
  });
});
