import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, lookup, nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * The price is the sum of its lines, and fair terms (docs/terms.md#the-price-is-the-sum-of-its-lines,
 * docs/terms.md#the-cancellation-fee, docs/terms.md#policies), through HTTP: the 30,000 JPY booking whose provider
 * raised the total to 99,000 with the old lines (refused, nothing changed), lines added and summed, the cancellation fee
 * on the quoted lines only and free before the provider accepts, CANCELLATION_FEE_APPLIES, rising tiers, the
 * provider's acceptWithinMinutes and unknown integration settings.
 */

type Json = Record<string, any>;
const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60);
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
let h: Harness;
let requester: Party, yen: Party, usd: Party, farm: Party, other: Party;
let hooks: ReturnType<typeof startReceiver>;
let farmIn: ReturnType<typeof startReceiver>;

const NRT = { lat: 35.7647, lon: 140.3864 };
const TOKYO = { locationType: "address", address: "Tokyo Station", lat: "35.6812", lon: "139.7671" };
const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };
/** Free until 3 h before the pickup, 50 % until 1 h before, then 100 %. */
const POLICIES = {
  cancellation: [
    { beforeMinutes: 180, percent: 0 },
    { beforeMinutes: 60, percent: 50 },
    { beforeMinutes: 0, percent: 100 },
  ],
};
const passengers = [{ firstName: "Ada", lastName: "King" }];
const auth = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });

let spread = 0;
/** A pickup `hours` ahead of the clock, a minute apart from every other booking's (each holds its vehicle). */
const pickupIn = (hours: number) => clock.now() + Math.round(hours * 3600) + 60 * spread++;
/** A trip from the airport `code` at `at` (Unix seconds) to `dropOff`. */
const trip = (code: string, at: number, dropOff: Json) => ({
  runType: "Airport",
  passengerCount: "2",
  locations: { pickup: { locationType: "airport", address: code, time: iso(at) }, dropOff },
});

/** A QUOTE to `to` and its conversion into a booking (GNet's way): the transactionId and the option booked. */
async function quotedBooking(to: Party, code: string, dropOff: Json, hours = 48): Promise<{ transactionId: string; option: Json; at: number }> {
  const at = pickupIn(hours);
  const affiliateReservation = { requesterId: requester.netid, requesterResNo: nextResNo(), providerId: to.netid, action: "NEW" };
  const quote = await sendTrip(h, requester, { ...trip(code, at, dropOff), reservationType: "QUOTE", passengers, affiliateReservation });
  expect(quote.status).toBe(200);
  const booked = await sendTrip(h, requester, { ...trip(code, at, dropOff), reservationType: "REGULAR", passengers, affiliateReservation });
  expect(booked.status).toBe(200);
  expect(booked.body.status).toBe("BOOKING_REQUEST");
  return { transactionId: booked.body.transactionId, option: quote.body.fees[0], at };
}

/** The booking as both parties read it (core lookup, GNet read). */
async function reads(transactionId: string, provider: Party): Promise<Json[]> {
  const out: Json[] = [];
  for (const who of [requester, provider]) {
    out.push((await lookup(h, who, transactionId)).body.data.tripPacket);
    out.push((await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: who.token } })).body);
  }
  return out;
}

async function received(rx: ReturnType<typeof startReceiver>, transactionId: string, match: (r: Received) => boolean): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = rx.received.find((r) => (r.json?.transactionId ?? r.json?.data?.transactionId) === transactionId && match(r));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no matching message for ${transactionId}`);
    await Bun.sleep(20);
  }
}

const cancelFee = async (who: Party, id: string) => (await h.request("GET", `/api/reservation/${id}/cancel-fee`, { headers: auth(who) })).body.data;
const fields = (res: { body: Json }) => (res.body.errors as Array<{ field: string }>).map((e) => e.field);
/** The booked (quoted) line as a provider's dispatch system echoes it: its code and amount. */
const echo = (option: Json) => ({ code: option.code, fee: option.fee });
const TOLL = { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "1200" };
const PARKING = { type: "EXPENSE", code: "PARKING", name: "Parking", fee: "800" };

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [requester, yen, usd, farm, other] = await Promise.all([
    party(h, "FARE-BOOKWELL", "CO"),
    party(h, "FARE-NARITA", "IO"),
    party(h, "FARE-BAYLIMO", "IO"),
    party(h, "FARE-FARMIN", "IO"),
    party(h, "FARE-OTHER", "IO"),
  ]);
  hooks = startReceiver();
  // A farm-in endpoint that answers a NEW by raising its price with the old lines: the rewrite, by another door.
  farmIn = startReceiver((r) =>
    Response.json(r.headers["x-tripswitch-event-type"] === "trip.new" ? { success: true, reservationId: `FF-${r.json.transactionId.slice(0, 8)}`, totalAmount: "99000", fees: r.json.fees } : {}),
  );
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(h, usd, { policies: POLICIES })).status).toBe(200);
  expect((await integrate(h, farm, { deliveryUrl: `${farmIn.url}/farm-in` })).status).toBe(200);
  const vans = (prefix: string, currency: string, minimumRate: string, at: { lat: number; lon: number } | undefined, airports: string[]) =>
    Array.from({ length: 8 }, (_, i) => ({ slug: `${prefix}-${i}`, type: "VAN", maxPassengers: 6, maxLuggage: 6, minimumRate, hourlyRate: "1", currency, airports, ...at }));
  await insertFleet(h, yen.netid, vans("fare-narita-van", "JPY", "30000", NRT, ["NRT"]));
  await insertFleet(h, farm.netid, vans("fare-farm-van", "JPY", "30000", NRT, ["NRT"]));
  await insertFleet(h, usd.netid, vans("fare-bay-van", "USD", "150.00", undefined, ["SFO"]));
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  hooks.stop();
  farmIn.stop();
  await h.close();
});

describe("the price is the sum of its lines", () => {
  test("the rewrite refused: 30,000 JPY raised to 99,000 with the old lines is 400 naming totalAmount, and nothing changes", async () => {
    const { transactionId, option } = await quotedBooking(yen, "NRT", TOKYO);
    expect(option).toMatchObject({ fee: "30000", currency: "JPY" });
    const before = (await lookup(h, requester, transactionId)).body.data.tripPacket;
    const raised = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", totalAmount: "99000", fees: before.fees });
    expect(raised.status).toBe(400);
    expect(raised.body.code).toBe("VALIDATION_FAILED");
    expect(fields(raised)).toEqual(["totalAmount"]);
    expect(raised.body.errors[0].message).toContain("30000 JPY");
    // The total alone, as GNet's CONFIRMED may carry it: the same answer.
    const alone = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", totalAmount: 99000 });
    expect(fields(alone)).toEqual(["totalAmount"]);
    for (const packet of await reads(transactionId, yen)) {
      expect(packet.status).toBe("BOOKING_REQUEST");
      expect(packet.totalAmount).toBe("30000");
      expect(packet.fees).toEqual(before.fees);
      expect(packet.changeLogs).toEqual(before.changeLogs);
    }
  });

  test("150.00 USD raised to 99,999.00 is refused the same way", async () => {
    const { transactionId, option } = await quotedBooking(usd, "SFO", CUPERTINO);
    expect(option.fee).toBe("150.00");
    const res = await providerUpdate(h, usd, transactionId, { status: "CONFIRMED", totalAmount: "99999.00" });
    expect(res.status).toBe(400);
    expect(fields(res)).toEqual(["totalAmount"]);
    expect((await lookup(h, requester, transactionId)).body.data.tripPacket).toMatchObject({ status: "BOOKING_REQUEST", totalAmount: "150.00" });
  });

  test("a quoted line changed or left out is 400 naming it; nothing changes", async () => {
    const { transactionId, option } = await quotedBooking(yen, "NRT", TOKYO);
    const changed = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [{ ...echo(option), fee: "99000" }] });
    expect(changed.status).toBe(400);
    expect(fields(changed)).toEqual(["fees[0].fee"]);
    expect(changed.body.errors[0].message).toContain("must be 30000");
    const dropped = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [] });
    expect(fields(dropped)).toEqual(["fees"]);
    const replaced = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [{ type: "BASE", code: "BASE", fee: "99000" }] });
    expect(fields(replaced)).toEqual(["fees[0].code"]);
    const wrongType = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [echo(option), { type: "BASE", fee: "69000" }] });
    expect(fields(wrongType)).toEqual(["fees[1].type"]);
    for (const packet of await reads(transactionId, yen)) expect(packet).toMatchObject({ status: "BOOKING_REQUEST", totalAmount: "30000" });
  });

  test("lines added after the quote are taken and summed: each a changeLogs line, in both reads and the webhook", async () => {
    const { transactionId, option } = await quotedBooking(yen, "NRT", TOKYO);
    expect((await providerUpdate(h, yen, transactionId, { status: "CONFIRMED" })).status).toBe(200);
    const added = await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [echo(option), TOLL, PARKING] });
    expect(added.status).toBe(200);
    for (const packet of await reads(transactionId, yen)) {
      expect(packet.totalAmount).toBe("32000");
      expect(packet.fees.map((f: Json) => [f.type, f.fee])).toEqual([
        ["OTHER", "30000"],
        ["CHARGE", "1200"],
        ["EXPENSE", "800"],
      ]);
      // The quoted line is kept as booked (its breakdown with it), not as the provider echoed it.
      expect(packet.fees[0].breakdown).toEqual(option.breakdown);
    }
    const logged = ((await lookup(h, requester, transactionId)).body.data.tripPacket.changeLogs as Json[]).map((l) => l.changeDesc);
    expect(logged).toContain("fee line added: CHARGE TOLL (Tolls) 1200 JPY");
    expect(logged).toContain("fee line added: EXPENSE PARKING (Parking) 800 JPY");
    expect(logged).toContain("totalAmount 30000 → 32000");
    const hook = await received(hooks, transactionId, (r) => r.json?.type === "booking.details_changed");
    expect(hook.json.data.tripPacket.totalAmount).toBe("32000");
    expect(hook.json.data.tripPacket.fees).toHaveLength(3);
    // An added line may change later, with a total that is their sum; one that is not is refused.
    const wrongSum = await providerUpdate(h, yen, transactionId, { status: "ASSIGNED", fees: [echo(option), { ...TOLL, fee: "1500" }], totalAmount: "32300" });
    expect(fields(wrongSum)).toEqual(["totalAmount"]);
    const changed = await providerUpdate(h, yen, transactionId, { status: "ASSIGNED", fees: [echo(option), { ...TOLL, fee: "1500" }], totalAmount: "31500" });
    expect(changed.status).toBe(200);
    expect((await lookup(h, requester, transactionId)).body.data.tripPacket).toMatchObject({ status: "ASSIGNED", totalAmount: "31500" });
  });

  test("a requester's UPDATE that re-prices the trip replaces the quoted line and keeps the lines the provider added", async () => {
    const { transactionId, option, at } = await quotedBooking(yen, "NRT", TOKYO);
    expect((await providerUpdate(h, yen, transactionId, { status: "CONFIRMED", fees: [echo(option), TOLL] })).status).toBe(200);
    const resNo = (await lookup(h, requester, transactionId)).body.data.sourceResNo;
    const update = await sendTrip(h, requester, {
      ...trip("NRT", at, TOKYO),
      passengerCount: "3",
      reservationType: "REGULAR",
      passengers,
      affiliateReservation: { requesterId: requester.netid, requesterResNo: resNo, providerId: yen.netid, action: "UPDATE" },
    });
    expect(update.status).toBe(200);
    const packet = (await lookup(h, requester, transactionId)).body.data.tripPacket;
    expect(packet.changeLogs.some((l: Json) => l.changeDesc.startsWith("re-priced for the changed trip"))).toBe(true);
    expect(packet.fees.map((f: Json) => [f.type, f.fee])).toEqual([
      ["OTHER", "30000"],
      ["CHARGE", "1200"],
    ]);
    expect(packet.totalAmount).toBe("31200");
    expect(update.body.totalAmount).toBe("31200");
  });

  test("a farm-in reply that raises the price is not taken: the delivery stands, transactionErrors says why", async () => {
    const { transactionId } = await quotedBooking(farm, "NRT", TOKYO);
    await received(farmIn, transactionId, (r) => r.headers["x-tripswitch-event-type"] === "trip.new");
    const deadline = Date.now() + 10_000;
    let packet = (await lookup(h, requester, transactionId)).body.data.tripPacket;
    while (!packet.transactionErrors.some((e: Json) => e.errCode === "FARE_NOT_TAKEN") && Date.now() < deadline) {
      await Bun.sleep(25);
      packet = (await lookup(h, requester, transactionId)).body.data.tripPacket;
    }
    expect(packet.transactionErrors.find((e: Json) => e.errCode === "FARE_NOT_TAKEN").errDesc).toContain("totalAmount");
    expect(packet.totalAmount).toBe("30000");
    // The rest of the reply is taken.
    expect((await lookup(h, requester, transactionId)).body.data.targetResNo).toStartWith("FF-");
  });
});

describe("fair terms", () => {
  test("free to cancel until the provider accepts, whatever the tier: cancel-fee says NOT_ACCEPTED", async () => {
    const { transactionId } = await quotedBooking(usd, "SFO", CUPERTINO, 0.5);
    for (const who of [requester, usd]) expect(await cancelFee(who, transactionId)).toMatchObject({ fee: "0.00", percent: 0, reason: "NOT_ACCEPTED", fare: "150.00" });
    const cancel = await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${transactionId}/V1`, { headers: { token: requester.token } });
    expect(cancel.status).toBe(200);
    const packet = (await lookup(h, requester, transactionId)).body.data.tripPacket;
    expect(packet.status).toBe("CANCEL");
    expect(packet.totalAmount).toBe("150.00");
    expect(packet.fees.some((f: Json) => f.type === "CANCELLATION")).toBe(false);
    expect(await cancelFee(requester, transactionId)).toMatchObject({ fee: "0.00", reason: "CANCELLED" });
  });

  test("the cancellation fee is a percent of the quoted lines, never of lines added later", async () => {
    const { transactionId, option } = await quotedBooking(usd, "SFO", CUPERTINO, 2.5);
    expect((await providerUpdate(h, usd, transactionId, { status: "CONFIRMED", fees: [echo(option), { type: "EXTRA_SERVICE", code: "WAITING", fee: "40.00" }] })).status).toBe(200);
    expect((await lookup(h, requester, transactionId)).body.data.tripPacket.totalAmount).toBe("190.00");
    expect(await cancelFee(requester, transactionId)).toMatchObject({ fee: "75.00", percent: 50, reason: "LATE_CANCELLATION", fare: "150.00", currency: "USD" });
    const cancel = await sendTrip(h, requester, { transactionId, affiliateReservation: { requesterId: requester.netid, action: "CANCEL" } });
    expect(cancel.status).toBe(200);
    expect(cancel.body.totalAmount).toBe("75.00");
    expect(cancel.body.fees.at(-1)).toMatchObject({ type: "CANCELLATION", code: "CANCELLATION_FEE", fee: "75.00", percent: 50 });
  });

  test("CANCELLATION_FEE_APPLIES counts the options already past their free window, in both quote kinds", async () => {
    const at = pickupIn(2);
    const affiliateReservation = { requesterId: requester.netid, requesterResNo: nextResNo(), providerId: usd.netid, action: "NEW" };
    const late = await sendTrip(h, requester, { ...trip("SFO", at, CUPERTINO), reservationType: "QUOTE", passengers, affiliateReservation });
    expect(late.status).toBe(200);
    const warning = late.body.warnings.find((w: Json) => w.code === "CANCELLATION_FEE_APPLIES");
    expect(warning).toMatchObject({ count: late.body.fees.length });
    expect(warning.message).toContain("past their free cancellation");
    const network = await h.request("POST", "/api/quotes", { headers: { token: requester.token }, body: { ...trip("SFO", pickupIn(2), CUPERTINO), providers: [usd.netid] } });
    expect(network.status).toBe(200);
    expect(network.body.data.warnings.find((w: Json) => w.code === "CANCELLATION_FEE_APPLIES")).toMatchObject({ count: network.body.data.options.length });
    // Still inside the free window: no warning.
    const early = await h.request("POST", "/api/quotes", { headers: { token: requester.token }, body: { ...trip("SFO", pickupIn(5), CUPERTINO), providers: [usd.netid] } });
    expect(early.body.data.options.length).toBeGreaterThan(0);
    expect(early.body.data.warnings.some((w: Json) => w.code === "CANCELLATION_FEE_APPLIES")).toBe(false);
  });

  test("tiers that get cheaper as the pickup nears are 400 naming policies.cancellation; nothing is saved", async () => {
    const cheaper = await integrate(h, other, { policies: { cancellation: [{ beforeMinutes: 1440, percent: 50 }, { beforeMinutes: 60, percent: 10 }] }, maxTripKm: 300 });
    expect(cheaper.status).toBe(400);
    expect(fields(cheaper)).toEqual(["policies.cancellation"]);
    expect(cheaper.body.errors[0].message).toContain("must cost more as the pickup nears");
    const flat = await integrate(h, other, { policies: { cancellation: [{ beforeMinutes: 120, percent: 100 }, { beforeMinutes: 0, percent: 100 }] } });
    expect(fields(flat)).toEqual(["policies.cancellation"]);
    const got = (await h.request("GET", "/api/company/integration", { headers: auth(other) })).body.data;
    expect(got.policies.cancellation).toEqual([{ beforeMinutes: 60, percent: 0 }, { beforeMinutes: 0, percent: 100 }]);
    expect(got.maxTripKm).toBe(800);
  });

  test("a provider's acceptWithinMinutes (5–1,440) shortens acceptBy; out of range is 400", async () => {
    for (const bad of [4, 1441, 7.5, "20"]) {
      const res = await integrate(h, other, { policies: { acceptWithinMinutes: bad } });
      expect(res.status).toBe(400);
      expect(fields(res)).toEqual(["policies.acceptWithinMinutes"]);
    }
    const set = await integrate(h, yen, { policies: { acceptWithinMinutes: 20 } });
    expect(set.status).toBe(200);
    expect(set.body.data.policies.acceptWithinMinutes).toBe(20);
    try {
      // Three days ahead: the lead time alone would give 24 h.
      const { transactionId } = await quotedBooking(yen, "NRT", TOKYO, 80);
      expect((await lookup(h, requester, transactionId)).body.data.acceptBy).toBe(iso(clock.now() + 20 * 60));
    } finally {
      const reset = await integrate(h, yen, { policies: { acceptWithinMinutes: null } });
      expect(reset.body.data.policies.acceptWithinMinutes).toBeUndefined();
    }
    const { transactionId } = await quotedBooking(yen, "NRT", TOKYO, 80);
    expect((await lookup(h, requester, transactionId)).body.data.acceptBy).toBe(iso(clock.now() + 24 * 3600));
  });
});

describe("integration settings that would do nothing", () => {
  test("an unknown member is 400 naming it, beside every other failing field; nothing is saved", async () => {
    const res = await integrate(h, other, { maxTripKM: 300, serviceRadiusKm: 900, turnaroundMinutes: 45, webhookVerified: true, deliveryAuth: { username: "ts", password: "pw-1234", realm: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(fields(res).sort()).toEqual(["deliveryAuth.realm", "maxTripKM", "serviceRadiusKm", "webhookVerified"]);
    expect(res.body.errors.find((e: Json) => e.field === "maxTripKM").message).toContain("is not an integration setting");
    const got = (await h.request("GET", "/api/company/integration", { headers: auth(other) })).body.data;
    expect(got).toMatchObject({ turnaroundMinutes: 30, deliveryAuth: null, serviceRadiusKm: 50 });
    // A policy that is none, too.
    expect(fields(await integrate(h, other, { policies: { cancelation: [] } }))).toEqual(["policies.cancelation"]);
  });
});
