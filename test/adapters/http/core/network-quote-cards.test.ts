import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import card from "../../../../adapters/http/examples/rate-card.json";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, lookup, party, quoteTrip, sendTrip, type Party } from "../../../support/trips";

/**
 * The network quote priced with each provider's rate card (docs/rates.md#how-a-vehicle-is-priced, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes) as the sendTrip QUOTE is: every option
 * with a breakdown summing to its fee, extras, providers left out for extras (EXTRA_NOT_OFFERED) or for a trip longer
 * than their maxTripKm (TRIP_TOO_LONG), no option at 0 (UNPRICED_VEHICLES); a booked option keeps its breakdown.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let maker: Party, ops: Party, plain: Party, short: Party;
const farmIn = startReceiver();
const hooks = startReceiver();
const JFK_LOT = { lat: 40.65, lon: -73.79, airports: ["JFK"] };
const MIDTOWN = { lat: "40.7601", lon: "-73.9840" };
const cents = (amount: string) => Math.round(Number(amount) * 100);
const sum = (lines: Array<{ amount: string }>) => lines.reduce((s, l) => s + cents(l.amount), 0);
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });

/** JFK to Times Square at `time` (New York), 2 passengers; `over` adds members (extras…). */
const jfkToMidtown = (time: string, over: Record<string, unknown> = {}) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time },
    dropOff: { locationType: "address", address: "Times Square, New York", ...MIDTOWN },
  },
  ...over,
});
const networkQuote = (body: unknown) => h.request("POST", "/api/quotes", { headers: bearer(maker), body });

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [maker, ops, plain, short] = await Promise.all([
    party(h, "NC-BOOK", "CO"),
    party(h, "NC-OPS", "IO"),
    party(h, "NC-PLAIN", "IO"),
    party(h, "NC-SHORT", "IO"),
  ]);
  await insertFleet(h, ops.netid, [
    { slug: "nc-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT },
    { slug: "nc-van", type: "VAN", maxPassengers: 8, maxLuggage: 8, minimumRate: "0", hourlyRate: "0", ...JFK_LOT },
  ]);
  await insertFleet(h, plain.netid, [
    { slug: "nc-plain", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "70.00", hourlyRate: "80.00", ...JFK_LOT },
    { slug: "nc-free", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "0", hourlyRate: "0", ...JFK_LOT },
  ]);
  await insertFleet(h, short.netid, [
    { slug: "nc-short", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, minimumRate: "50.00", hourlyRate: "60.00", ...JFK_LOT },
  ]);
  expect((await h.request("PUT", "/api/company/rates", { headers: bearer(ops), body: card })).status).toBe(200);
  expect((await integrate(h, short, { maxTripKm: 10 })).status).toBe(200);
  expect((await integrate(h, ops, { deliveryUrl: `${farmIn.url}/farm-in`, luggage: "native" })).status).toBe(200);
  expect((await integrate(h, maker, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  h.services.worker.start();
});
afterAll(() => {
  farmIn.stop();
  hooks.stop();
  h.close();
});

describe("a network quote priced with rate cards", () => {
  test("the card's route, surcharges and extra with their breakdown; providers that cannot supply the extra or the distance left out", async () => {
    const res = await networkQuote(jfkToMidtown("2027-03-10T23:30:00", { extras: [{ code: "CHILD_SEAT", quantity: 1 }] }));
    expect(res.status).toBe(200);
    const { options, warnings, totalAmount } = res.body.data;
    // docs/rates.md, "In a network quote": these numbers. The van (no rate of its type, own rates 0) has no price.
    expect(options.map((o: { code: string; fee: string }) => [o.code, o.fee])).toEqual([["nc-sedan", "141.00"]]);
    expect(totalAmount).toBe("141.00");
    expect(options[0].breakdown).toEqual([
      { kind: "BASE", id: "jfk-midtown", name: "Route fare", amount: "95.00" },
      { kind: "SURCHARGE", id: "jfk-fee", name: "Airport pickup", amount: "15.00" },
      { kind: "SURCHARGE", id: "night", name: "Night surcharge", amount: "19.00" },
      { kind: "EXTRA", code: "CHILD_SEAT", name: "Child seat", amount: "12.00" },
    ]);
    for (const o of options) expect(sum(o.breakdown)).toBe(cents(o.fee));
    expect(warnings).toContainEqual(expect.objectContaining({ code: "UNPRICED_VEHICLES", count: 1 }));
    expect(warnings).toContainEqual(expect.objectContaining({ code: "EXTRA_NOT_OFFERED", count: 2, codes: ["CHILD_SEAT"] }));
    expect(warnings).toContainEqual(expect.objectContaining({ code: "TRIP_TOO_LONG", count: 1 }));
    // The stored quote shows the same.
    const read = await h.request("GET", `/api/quotes/${res.body.data.quoteId}`, { headers: bearer(maker) });
    expect(read.body.data.options).toEqual(options);
  });

  test("as the sendTrip QUOTE prices the same provider", async () => {
    const body = quoteTrip(maker.netid, ops.netid, jfkToMidtown("2027-03-10T23:30:00", { extras: [{ code: "CHILD_SEAT" }] }));
    delete body.preferredVehicleType;
    const single = await sendTrip(h, maker, body);
    const network = await networkQuote({ ...jfkToMidtown("2027-03-10T23:30:00", { extras: [{ code: "CHILD_SEAT" }] }), providers: [ops.netid] });
    const pick = (o: { code: string; fee: string; breakdown: unknown }) => ({ code: o.code, fee: o.fee, breakdown: o.breakdown });
    expect(network.body.data.options.map(pick)).toEqual(single.body.fees.map(pick));
  });

  test("without a card each option is its own rates in one line; a vehicle at 0 is never offered", async () => {
    const res = await networkQuote(jfkToMidtown("2027-03-10T12:00:00"));
    const { options, warnings } = res.body.data;
    const byCode = Object.fromEntries(options.map((o: { code: string }) => [o.code, o]));
    expect(byCode["nc-plain"].breakdown).toEqual([{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: byCode["nc-plain"].fee }]);
    expect(byCode["nc-sedan"].fee).toBe("110.00");
    expect(byCode["nc-free"]).toBeUndefined();
    expect(byCode["nc-van"]).toBeUndefined();
    // nc-free (no card, rates 0) and nc-van (a card with no rate of its type, rates 0).
    expect(warnings).toContainEqual(expect.objectContaining({ code: "UNPRICED_VEHICLES", count: 2 }));
    for (const o of options) expect(sum(o.breakdown)).toBe(cents(o.fee));
  });

  test("bad extras are 400 naming each field; nothing stored", async () => {
    const before = await h.count("network_quotes");
    const res = await networkQuote(jfkToMidtown("2027-03-10T12:00:00", { extras: [{ code: "" }, { code: "CHILD_SEAT", quantity: 0 }] }));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["extras[0].code", "extras[1].quantity"]);
    const notList = await networkQuote(jfkToMidtown("2027-03-10T12:00:00", { extras: "CHILD_SEAT" }));
    expect(notList.status).toBe(400);
    expect(JSON.stringify(notList.body)).toContain("extras");
    expect(await h.count("network_quotes")).toBe(before);
  });

  test("JFK → Heathrow is never a ground quote: every provider left out (TRIP_TOO_LONG), in both quote kinds", async () => {
    const toLhr = jfkToMidtown("2027-03-10T12:00:00");
    toLhr.locations.dropOff = { locationType: "airport", address: "LHR" } as (typeof toLhr)["locations"]["dropOff"];
    const res = await networkQuote(toLhr);
    expect(res.status).toBe(200);
    expect(res.body.data.options).toEqual([]);
    expect(res.body.data.warnings).toContainEqual(expect.objectContaining({ code: "TRIP_TOO_LONG", count: 5 }));
    const body = quoteTrip(maker.netid, plain.netid, toLhr);
    const single = await sendTrip(h, maker, body);
    expect(single.status).toBe(200);
    expect(single.body.fees).toEqual([]);
    expect(single.body.totalAmount).toBeNull();
    expect(single.body.warnings).toContainEqual(expect.objectContaining({ code: "TRIP_TOO_LONG", count: 2 }));
    // A provider whose maxTripKm (10) is shorter than JFK → Midtown (~26 km of road): none from it either.
    const near = await sendTrip(h, maker, quoteTrip(maker.netid, short.netid, jfkToMidtown("2027-03-10T12:00:00")));
    expect(near.body.fees).toEqual([]);
    expect(near.body.warnings).toContainEqual(expect.objectContaining({ code: "TRIP_TOO_LONG", count: 1 }));
  });

  test("maxTripKm is an integration setting, 1–5,000 (default 800); a bad value is 400 naming it", async () => {
    const view = await h.request("GET", "/api/company/integration", { headers: bearer(plain) });
    expect(view.body.maxTripKm ?? view.body.data?.maxTripKm).toBe(800);
    for (const bad of [0, 5001, 12.5]) {
      const res = await integrate(h, plain, { maxTripKm: bad });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["maxTripKm"]);
    }
  });
});

/** The received message of `type` for the booking, waiting for it (bounded). */
async function messageOf(rx: ReturnType<typeof startReceiver>, type: string, transactionId: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = rx.received.find((r) => r.headers["x-tripswitch-event-type"] === type && (r.json?.transactionId ?? r.json?.data?.transactionId) === transactionId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} message for ${transactionId}`);
    await Bun.sleep(20);
  }
}

describe("a booked network option", () => {
  test("keeps its breakdown in the answer, both parties' reads, the provider's delivery and the requester's webhook", async () => {
    const made = (await networkQuote(jfkToMidtown("2027-03-10T23:30:00", { extras: [{ code: "CHILD_SEAT", quantity: 1 }] }))).body.data;
    const option = made.options.find((o: { code: string }) => o.code === "nc-sedan");
    const booked = await h.request("POST", `/api/quotes/${made.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: "NC-RES-1", passengers: [{ firstName: "Ada", lastName: "King" }] },
    });
    expect(booked.status).toBe(200);
    expect(booked.body.totalAmount).toBe("141.00");
    expect(booked.body.fees[0].breakdown).toEqual(option.breakdown);
    for (const who of [maker, ops]) expect((await lookup(h, who, booked.body.transactionId)).body.data.tripPacket.fees[0].breakdown).toEqual(option.breakdown);
    const delivered = await messageOf(farmIn, "trip.new", booked.body.transactionId);
    expect(delivered.json.fees[0].breakdown).toEqual(option.breakdown);
    const hook = await messageOf(hooks, "booking.created", booked.body.transactionId);
    expect(JSON.stringify(hook.json)).toContain(JSON.stringify(option.breakdown));
  });
});

describe("a requester's UPDATE of a booking made from a carded provider's option", () => {
  test("is re-priced with the provider's card: moved to the night, the route fare gains the night surcharge", async () => {
    const made = (await networkQuote(jfkToMidtown("2027-03-11T12:00:00"))).body.data;
    const option = made.options.find((o: { code: string }) => o.code === "nc-sedan");
    expect(option.fee).toBe("110.00");
    const booked = await h.request("POST", `/api/quotes/${made.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: "NC-RES-2", passengers: [{ firstName: "Ada", lastName: "King" }] },
    });
    expect(booked.status).toBe(200);
    const { transactionId } = booked.body;
    const moved = await sendTrip(h, maker, {
      ...jfkToMidtown("2027-03-11T23:30:00"),
      transactionId,
      affiliateReservation: { requesterId: maker.netid, action: "UPDATE" },
    });
    expect(moved.status).toBe(200);
    // 95.00 route + 15.00 JFK pickup + 19.00 night (the vehicle's own rates would say 80.00).
    expect(moved.body.totalAmount).toBe("129.00");
    expect(moved.body.fees[0].breakdown.map((l: { id: string }) => l.id)).toEqual(["jfk-midtown", "jfk-fee", "night"]);
    const packet = (await lookup(h, ops, transactionId)).body.data.tripPacket;
    expect(packet.totalAmount).toBe("129.00");
    expect(packet.changeLogs.some((l: { changeDesc: string }) => l.changeDesc.includes("110.00 → 129.00"))).toBe(true);
  });
});

describe("the hold index's load", () => {
  test("has an index on vehicle_holds.ends_at (migration holds_ends_at_idx), on both databases", async () => {
    const sql = process.env.TRIPSWITCH_TEST_DB === "postgres"
      ? "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'vehicle_holds'"
      : "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'vehicle_holds'";
    expect((await h.rows<{ name: string }>(sql)).map((r) => r.name)).toContain("vehicle_holds_ends_at");
  });
});
