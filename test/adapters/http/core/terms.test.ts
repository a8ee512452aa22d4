import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, lookup, nextResNo, party, sendTrip, type Party } from "../../../support/trips";

/**
 * Terms (docs/terms.md#policies, docs/terms.md#the-cancellation-fee): a provider's policies give every quote option its terms, a booking keeps the terms it
 * was made under (both reads, webhook, delivery), and a requester's cancel after the free window is charged. The
 * worked example of docs/terms.md, number for number: policies → quote terms → late cancel fee.
 */

type Json = Record<string, any>;
// The delivery worker keeps real time: the clock starts now, and pickups lie a given time ahead of it.
const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60);
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
let h: Harness;
let requester: Party, provider: Party, plain: Party, stranger: Party;
let hooks: ReturnType<typeof startReceiver>;
let farmIn: ReturnType<typeof startReceiver>;

/** The worked example's policies (docs/terms.md). */
const POLICIES = {
  cancellation: [
    { beforeMinutes: 180, percent: 0 },
    { beforeMinutes: 60, percent: 50 },
    { beforeMinutes: 0, percent: 100 },
  ],
  freeWaitingMinutes: { airport: 45, other: 10 },
};
/** The terms they give an airport pickup at `pickup` (Unix seconds): free until 3 h before, 50% until 1 h before, then 100%. */
const exampleTerms = (pickup: number) => ({
  freeCancellationUntil: iso(pickup - 3 * 3600),
  cancellation: [
    { until: iso(pickup - 3 * 3600), percent: 0 },
    { until: iso(pickup - 3600), percent: 50 },
    { until: iso(pickup), percent: 100 },
  ],
  freeWaitingMinutes: 45,
  assignBy: iso(pickup - 2 * 3600),
});

/** Each booking picks up at a time of its own, `hours` ahead of the clock (the default: two days). */
let spread = 0;
function pickupIn(hours = 48): { time: string; at: number } {
  const at = clock.now() + Math.round(hours * 3600) + 60 * spread++;
  return { time: iso(at), at };
}
let pickup = pickupIn();
const SFO_PICKUP = {
  locationType: "airport",
  address: "SFO",
  get time() {
    return pickup.time;
  },
};
const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };
/** 3 passengers SFO → Cupertino: the sedan at 80.00 an hour for 1.25 h = 100.00. */
const trip = (over: Json = {}) => ({ runType: "Airport", passengerCount: "3", locations: { pickup: SFO_PICKUP, dropOff: CUPERTINO }, ...over });
const passengers = [{ firstName: "Ada", lastName: "King" }];
const affiliate = (to: Party, resNo: string, action = "NEW") => ({ requesterId: requester.netid, requesterResNo: resNo, providerId: to.netid, action });
const auth = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const cancelFee = (who: Party, id: string) => h.request("GET", `/api/reservation/${id}/cancel-fee`, { headers: auth(who) });
/** The provider accepts the booking (CONFIRMED): the terms' tiers apply from then on (docs/terms.md#the-cancellation-fee). */
async function accept(transactionId: string): Promise<void> {
  const res = await h.request("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, {
    headers: { token: provider.token },
    body: { status: "CONFIRMED" },
  });
  expect(res.status).toBe(200);
}

/** The first message `rx` got for the booking that `match` accepts (bounded wait). */
async function received(rx: ReturnType<typeof startReceiver>, transactionId: string, match: (r: Received) => boolean): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = rx.received.find((r) => (r.json?.transactionId ?? r.json?.data?.transactionId) === transactionId && match(r));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no matching message for ${transactionId}`);
    await Bun.sleep(20);
  }
}

/** A QUOTE to `to` and its conversion into a booking (GNet's way): the booking's transactionId and the quote's answer. */
async function quotedBooking(to: Party, over: Json = {}, hours = 48): Promise<{ transactionId: string; quote: Json; at: number }> {
  pickup = pickupIn(hours);
  const resNo = nextResNo();
  const quote = await sendTrip(h, requester, { ...trip(over), reservationType: "QUOTE", passengers, affiliateReservation: affiliate(to, resNo) });
  expect(quote.status).toBe(200);
  const booked = await sendTrip(h, requester, { ...trip(over), reservationType: "REGULAR", passengers, affiliateReservation: affiliate(to, resNo) });
  expect(booked.status).toBe(200);
  expect(booked.body.status).toBe("BOOKING_REQUEST");
  return { transactionId: booked.body.transactionId, quote: quote.body, at: pickup.at };
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [requester, provider, plain, stranger] = await Promise.all([
    party(h, "TERMS-BOOKWELL", "CO"),
    party(h, "TERMS-ACME", "IO"),
    party(h, "TERMS-PLAIN", "IO"),
    party(h, "TERMS-OTHER", "IO"),
  ]);
  hooks = startReceiver();
  farmIn = startReceiver();
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(h, provider, { deliveryUrl: `${farmIn.url}/farm-in`, policies: POLICIES })).status).toBe(200);
  // Enough sedans that every booking of the day finds one free (a booked quote holds its vehicle, docs/availability.md).
  const sedans = (prefix: string, hourlyRate: string) =>
    Array.from({ length: 16 }, (_, i) => ({ slug: `${prefix}-sedan-${String(i).padStart(2, "0")}`, type: "SEDAN", maxPassengers: 4, maxLuggage: 4, hourlyRate }));
  await insertFleet(h, provider.netid, sedans("terms", "80.00"));
  await insertFleet(h, plain.netid, sedans("plain", "90.00"));
  h.services.worker.start();
}, 60_000);

afterAll(async () => {
  hooks.stop();
  farmIn.stop();
  await h.close();
});

describe("policies (integration setting)", () => {
  test("defaults: free until 1 h before, then 100%; free waiting 60 at an airport, 15 elsewhere", async () => {
    const res = await h.request("GET", "/api/company/integration", { headers: auth(plain) });
    expect(res.status).toBe(200);
    expect(res.body.data.policies).toEqual({
      cancellation: [
        { beforeMinutes: 60, percent: 0 },
        { beforeMinutes: 0, percent: 100 },
      ],
      freeWaitingMinutes: { airport: 60, other: 15 },
      etaSpeedKmh: 40,
      assignBeforeMinutes: 120,
    });
  });

  test("400 naming each failing field, nothing saved", async () => {
    const bad = await integrate(h, stranger, {
      policies: { cancellation: [{ beforeMinutes: -5, percent: 101 }, { beforeMinutes: 30, percent: 10 }, { beforeMinutes: 30, percent: 20 }], freeWaitingMinutes: { airport: "x", other: 2000 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "policies.cancellation[0].beforeMinutes",
      "policies.cancellation[0].percent",
      "policies.cancellation[2].beforeMinutes",
      "policies.freeWaitingMinutes.airport",
      "policies.freeWaitingMinutes.other",
    ]);
    const empty = await integrate(h, stranger, { policies: { cancellation: [] }, turnaroundMinutes: 45 });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e: { field: string }) => e.field)).toEqual(["policies.cancellation"]);
    const got = await h.request("GET", "/api/company/integration", { headers: auth(stranger) });
    expect(got.body.data.policies.freeWaitingMinutes).toEqual({ airport: 60, other: 15 });
    expect(got.body.data.turnaroundMinutes).toBe(30);
  });

  test("set, shown sorted earliest first, merged per figure, null resets", async () => {
    const set = await integrate(h, stranger, { policies: { cancellation: [{ beforeMinutes: 0, percent: 100 }, { beforeMinutes: 120, percent: 0 }], freeWaitingMinutes: { other: 5 } } });
    expect(set.status).toBe(200);
    expect(set.body.data.policies).toEqual({
      cancellation: [
        { beforeMinutes: 120, percent: 0 },
        { beforeMinutes: 0, percent: 100 },
      ],
      freeWaitingMinutes: { airport: 60, other: 5 },
      etaSpeedKmh: 40,
      assignBeforeMinutes: 120,
    });
    const merged = await integrate(h, stranger, { policies: { freeWaitingMinutes: { airport: 30 } } });
    expect(merged.body.data.policies.freeWaitingMinutes).toEqual({ airport: 30, other: 5 });
    const reset = await integrate(h, stranger, { policies: null });
    expect(reset.body.data.policies).toEqual({
      cancellation: [{ beforeMinutes: 60, percent: 0 }, { beforeMinutes: 0, percent: 100 }],
      freeWaitingMinutes: { airport: 60, other: 15 },
      etaSpeedKmh: 40,
      assignBeforeMinutes: 120,
    });
  });
});

describe("terms on quotes and bookings", () => {
  test("every quote option carries the terms; the booking keeps them in both reads, webhook and delivery", async () => {
    const { transactionId, quote, at } = await quotedBooking(provider);
    const terms = exampleTerms(at);
    expect(quote.fees.length).toBeGreaterThan(0);
    for (const option of quote.fees) expect(option.terms).toEqual(terms);
    expect(quote.fees[0].fee).toBe("100.00");
    for (const who of [requester, provider]) {
      const core = await lookup(h, who, transactionId);
      expect(core.body.data.terms).toEqual(terms);
      expect(core.body.data.tripPacket.terms).toEqual(terms);
      // The booked fee line is the option without its terms: the booking carries them.
      expect(core.body.data.tripPacket.fees[0].terms).toBeUndefined();
      const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: who.token } });
      expect(gnet.body.terms).toEqual(terms);
    }
    const hook = await received(hooks, transactionId, (r) => r.json?.data?.lastStatus === "BOOKING_REQUEST");
    expect(hook.json.data.terms).toEqual(terms);
    const delivered = await received(farmIn, transactionId, (r) => r.json?.status === "BOOKING_REQUEST");
    expect(delivered.json.terms).toEqual(terms);
  });

  test("a later policy change never alters a booking's terms; new quotes take it", async () => {
    const { transactionId, at } = await quotedBooking(provider);
    expect((await integrate(h, provider, { policies: { freeWaitingMinutes: { airport: 5 } } })).status).toBe(200);
    try {
      expect((await lookup(h, requester, transactionId)).body.data.terms).toEqual(exampleTerms(at));
      const { quote } = await quotedBooking(provider);
      expect(quote.fees[0].terms.freeWaitingMinutes).toBe(5);
    } finally {
      expect((await integrate(h, provider, { policies: POLICIES })).status).toBe(200);
    }
  });

  test("defaults: an airport pickup waits 60, another 15; an HOURLY trip is free until 24 h before", async () => {
    const airport = await quotedBooking(plain);
    expect(airport.quote.fees[0].terms).toEqual({
      freeCancellationUntil: iso(airport.at - 3600),
      cancellation: [
        { until: iso(airport.at - 3600), percent: 0 },
        { until: iso(airport.at), percent: 100 },
      ],
      freeWaitingMinutes: 60,
      assignBy: iso(airport.at - 2 * 3600),
    });
    // Near the same airport by coordinates, not named an airport: the other figure.
    const street = () => ({ locationType: "address", address: "McDonnell Rd", lat: "37.6213", lon: "-122.379", time: pickup.time });
    const other = await quotedBooking(plain, { locations: { get pickup() { return street(); }, dropOff: CUPERTINO } });
    expect(other.quote.fees[0].terms.freeWaitingMinutes).toBe(15);
    const hourly = await quotedBooking(plain, { runType: "HOURLY", totalTripDuration: "120" });
    expect(hourly.quote.fees[0].terms.freeCancellationUntil).toBe(iso(hourly.at - 24 * 3600));
  });

  test("a requester's UPDATE moving the pickup moves the terms' instants with it (the same tiers)", async () => {
    pickup = pickupIn();
    const resNo = nextResNo();
    const res = await sendTrip(h, requester, { ...trip(), reservationType: "REGULAR", passengers, affiliateReservation: affiliate(provider, resNo) });
    expect(res.status).toBe(200);
    const later = pickup.at + 86400;
    const moved = { ...trip(), locations: { pickup: { ...SFO_PICKUP, time: iso(later) }, dropOff: CUPERTINO } };
    const update = await sendTrip(h, requester, { ...moved, passengers, affiliateReservation: affiliate(provider, resNo, "UPDATE") });
    expect(update.status).toBe(200);
    expect((await lookup(h, requester, res.body.transactionId)).body.data.terms).toEqual(exampleTerms(later));
  });

  test("a booking not made from a quote takes the provider's policies at booking time", async () => {
    pickup = pickupIn();
    const res = await sendTrip(h, requester, { ...trip(), reservationType: "REGULAR", passengers, affiliateReservation: affiliate(provider, nextResNo()) });
    expect(res.status).toBe(200);
    expect((await lookup(h, requester, res.body.transactionId)).body.data.terms).toEqual(exampleTerms(pickup.at));
  });

  test("network quote options carry their provider's terms; the booking keeps them", async () => {
    pickup = pickupIn();
    const res = await h.request("POST", "/api/quotes", { headers: { token: requester.token }, body: trip() });
    expect(res.status).toBe(200);
    const mine = res.body.data.options.find((o: Json) => o.provider.netid === provider.netid);
    const theirs = res.body.data.options.find((o: Json) => o.provider.netid === plain.netid);
    expect(mine.terms).toEqual(exampleTerms(pickup.at));
    expect(theirs.terms.freeCancellationUntil).toBe(iso(pickup.at - 3600));
    const book = await h.request("POST", `/api/quotes/${res.body.data.quoteId}/book`, {
      headers: { token: requester.token },
      body: { quoteOptionId: mine.quoteOptionId, requesterResNo: nextResNo(), passengers },
    });
    expect(book.status).toBe(200);
    expect((await lookup(h, requester, book.body.transactionId)).body.data.terms).toEqual(exampleTerms(pickup.at));
  });
});

const LINE = (amount: string, percent: number) => ({ type: "CANCELLATION", code: "CANCELLATION_FEE", amount, fee: amount, currency: "USD", percent });

describe("the cancel fee", () => {
  test("the worked example: free 3 h before, 50.00 USD of 100.00 at 2 h 30 before; the late cancel charges it everywhere", async () => {
    const early = await quotedBooking(provider, {}, 3.5);
    await accept(early.transactionId);
    for (const who of [requester, provider]) {
      const free = await cancelFee(who, early.transactionId);
      expect(free.status).toBe(200);
      expect(free.body.data).toEqual({ fee: "0.00", currency: "USD", percent: 0, freeUntil: iso(early.at - 3 * 3600), reason: "FREE_WINDOW", fare: "100.00" });
    }
    const { transactionId, at } = await quotedBooking(provider, {}, 2.5);
    await accept(transactionId);
    expect((await cancelFee(requester, transactionId)).body.data).toEqual({
      fee: "50.00",
      currency: "USD",
      percent: 50,
      freeUntil: iso(at - 3 * 3600),
      reason: "LATE_CANCELLATION",
      fare: "100.00",
    });
    const cancel = await sendTrip(h, requester, { transactionId, affiliateReservation: { requesterId: requester.netid, action: "CANCEL" } });
    expect(cancel.status).toBe(200);
    expect(cancel.body.totalAmount).toBe("50.00");
    expect(cancel.body.fees.at(-1)).toMatchObject(LINE("50.00", 50));
    const read = await lookup(h, requester, transactionId);
    expect(read.body.data.tripPacket.totalAmount).toBe("50.00");
    expect(read.body.data.tripPacket.fees.at(-1)).toMatchObject(LINE("50.00", 50));
    // The fee's log line (the delivery worker may log the NEW's delivery after it).
    const logged = (read.body.data.tripPacket.changeLogs as Array<{ changeDesc: string }>).map((l) => l.changeDesc);
    expect(logged.some((d) => d.includes("cancellation fee 50.00 USD (50%)"))).toBe(true);
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: provider.token } });
    expect(gnet.body.fees.at(-1)).toMatchObject(LINE("50.00", 50));
    const hook = await received(hooks, transactionId, (r) => r.json?.data?.lastStatus === "CANCEL");
    expect(hook.json.data.tripPacket.fees.at(-1)).toMatchObject(LINE("50.00", 50));
    expect(hook.json.data.tripPacket.totalAmount).toBe("50.00");
    const delivered = await received(farmIn, transactionId, (r) => r.json?.affiliateReservation?.action === "CANCEL");
    expect(delivered.json.fees.at(-1)).toMatchObject(LINE("50.00", 50));
    expect(delivered.json.totalAmount).toBe("50.00");
    // Asked again after the cancel: the fee it was charged.
    expect((await cancelFee(provider, transactionId)).body.data).toMatchObject({ fee: "50.00", percent: 50 });
  });

  test("GNet cancels answer OK and charge the same; inside the free window nothing is charged", async () => {
    const free = await quotedBooking(provider, {}, 4);
    const ok = await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${free.transactionId}/V1`, { headers: { token: requester.token } });
    expect(ok.status).toBe(200);
    const freeRead = await lookup(h, requester, free.transactionId);
    expect(freeRead.body.data.lastStatus).toBe("CANCEL");
    expect(freeRead.body.data.tripPacket.fees.some((f: Json) => f.code === "CANCELLATION_FEE")).toBe(false);
    expect(freeRead.body.data.tripPacket.totalAmount).toBe("100.00");
    const late = await quotedBooking(provider, {}, 0.5);
    await accept(late.transactionId);
    const res = await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${late.transactionId}/V1`, { headers: { token: requester.token } });
    expect(res.status).toBe(200);
    expect(res.body).toBe("OK");
    const read = await lookup(h, requester, late.transactionId);
    expect(read.body.data.tripPacket.totalAmount).toBe("100.00");
    expect(read.body.data.tripPacket.fees.at(-1)).toMatchObject(LINE("100.00", 100));
    const resNoLate = await quotedBooking(provider, {}, 2);
    await accept(resNoLate.transactionId);
    const byResNo = await h.request("GET", `/Platform.svc/cancelTripByResNo/${requester.netid}/${encodeURIComponent(await resNoOf(resNoLate.transactionId))}/V1`, {
      headers: { token: requester.token },
    });
    expect(byResNo.status).toBe(200);
    expect((await lookup(h, requester, resNoLate.transactionId)).body.data.tripPacket.fees.at(-1)).toMatchObject(LINE("50.00", 50));
  });

  test("a provider's REJECT never charges the requester", async () => {
    const { transactionId } = await quotedBooking(provider, {}, 0.5);
    const res = await h.request("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, {
      headers: { token: provider.token },
      body: { status: "REJECT" },
    });
    expect(res.status).toBe(200);
    const read = await lookup(h, requester, transactionId);
    expect(read.body.data.lastStatus).toBe("REJECT");
    expect(read.body.data.tripPacket.fees.some((f: Json) => f.code === "CANCELLATION_FEE")).toBe(false);
    expect(read.body.data.tripPacket.totalAmount).toBe("100.00");
  });

  test("404 for anyone not a party and for an unknown id; 400 for an id that is not a UUID", async () => {
    const { transactionId } = await quotedBooking(provider);
    const other = await cancelFee(stranger, transactionId);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("BOOKING_NOT_FOUND");
    expect((await cancelFee(requester, "0193f1c2-6a3e-7b41-9d2c-5e8f0a1b2c3d")).status).toBe(404);
    expect((await cancelFee(requester, "not-an-id")).status).toBe(400);
    const byToken = await h.request("GET", `/api/reservation/${transactionId}/cancel-fee`, { headers: { token: provider.token } });
    expect(byToken.status).toBe(200);
  });
});

/** The requester's reservation number of a booking. */
async function resNoOf(transactionId: string): Promise<string> {
  return (await lookup(h, requester, transactionId)).body.data.sourceResNo;
}
