import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, type Harness } from "../../../support/harness";
import { lookup, providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { startReceiver } from "../../../support/receiver";
import { ADA, bearer, iso, jfkTrip } from "../../../support/jfk";
import { cascadeWorld, eventually, logWatchFailure, receivedBy, rewinder, watchUntilClaimed } from "../../../support/cascade";
import { startOfferWatch } from "../../../../src/services";

/**
 * Acceptance deadlines and the cascade through HTTP (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback): every NEW booking carries acceptBy by lead
 * time; a provider that lets it pass is sent CANCEL and the booking ends REJECT ACCEPT_TIMEOUT, or — booked from a
 * network quote with a fallback — moves to the next option under the same transactionId. The deadline arithmetic runs
 * on a manual clock and the watch is run by hand; one test runs the watch's own timer against real time.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = rewinder(clock);
let h: Harness;
let maker: Party, p1: Party, p2: Party, p3: Party;
const rx = startReceiver();

const trip = (pickupIn: number) => jfkTrip(iso(clock.now() + pickupIn));
let resNo = 0;
const regular = (provider: Party, pickupIn: number, over: Record<string, unknown> = {}) =>
  sendTrip(h, maker, {
    reservationType: "REGULAR",
    ...trip(pickupIn),
    passengers: ADA,
    affiliateReservation: { requesterId: maker.netid, requesterResNo: `CAS-${++resNo}`, providerId: provider.netid, action: "NEW" },
    ...over,
  });
const { received, hooks } = receivedBy(rx);
/** One pass of the watch that claimed something, tried for up to a second. */
const watch = () => watchUntilClaimed(h.services.offers, 20, 50, logWatchFailure);

beforeAll(async () => {
  ({ h, maker, p1, p2, p3 } = await cascadeWorld(
    clock,
    rx,
    ["CAS-BOOK", "CAS-ONE", "CAS-TWO", "CAS-THREE"],
    [["cas-one-car", "50.00", "SEDAN"], ["cas-two-car", "60.00", "SEDAN"], ["cas-three-car", "70.00", "SEDAN"]],
    { webhooks: true },
  ));
}, 60_000);

afterAll(async () => {
  await h.close();
  rx.stop();
});

describe("acceptBy (docs/terms.md#the-acceptance-deadline-acceptby)", () => {
  test("a NEW booking's acceptBy follows the pickup's lead time; acceptWithinMinutes asks sooner", async () => {
    const now = clock.now();
    for (const [lead, window] of [[10 * 3600, 1800], [30 * 3600, 4 * 3600], [60 * 3600, 12 * 3600], [100 * 3600, 24 * 3600]]) {
      const res = await regular(p1, lead);
      expect(res.status).toBe(200);
      const read = await lookup(h, maker, res.body.transactionId);
      expect(read.body.data.acceptBy).toBe(iso(now + window));
      expect(read.body.data.providerId).toBe(p1.netid);
      expect(read.body.data.offers).toEqual([expect.objectContaining({ provider: p1.netid, status: "BOOKING_REQUEST", at: iso(now) })]);
    }
    const sooner = await regular(p1, 100 * 3600, { acceptWithinMinutes: 5 });
    expect((await lookup(h, maker, sooner.body.transactionId)).body.data.acceptBy).toBe(iso(now + 300));
  });

  test("acceptWithinMinutes outside 1–1440 and a fallback without a quote are 400 naming each field; nothing is booked", async () => {
    const before = await h.count("bookings");
    const bad = await regular(p1, 3600, { acceptWithinMinutes: 0, fallback: { maxFee: "-3" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["acceptWithinMinutes", "fallback.maxFee"]);
    const noQuote = await regular(p1, 3600, { acceptWithinMinutes: 1441, fallback: { maxFee: "90.00" } });
    expect(noQuote.status).toBe(400);
    expect(noQuote.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(["acceptWithinMinutes", "fallback"]);
    expect(await h.count("bookings")).toBe(before);
  });

  test("past acceptBy unaccepted: the provider is sent CANCEL, the booking is REJECT with reason ACCEPT_TIMEOUT; an accepted one stays", async () => {
    rewind(600);
    const lapsing = (await regular(p1, 5 * 3600, { acceptWithinMinutes: 1 })).body.transactionId as string;
    const accepted = (await regular(p1, 5 * 3600, { acceptWithinMinutes: 1 })).body.transactionId as string;
    expect((await providerUpdate(h, p1, accepted, { status: "CONFIRMED" })).status).toBe(200);
    await eventually(() => received("/p1", lapsing).length === 1);
    clock.advance(59);
    await watch();
    expect((await lookup(h, maker, lapsing)).body.data.lastStatus).toBe("BOOKING_REQUEST");
    clock.advance(2);
    const pass = await watch();
    expect(pass.ended).toBe(1);
    const read = (await lookup(h, maker, lapsing)).body.data;
    expect(read).toMatchObject({ lastStatus: "REJECT", reason: "ACCEPT_TIMEOUT" });
    expect(read.offers).toEqual([expect.objectContaining({ provider: p1.netid, status: "CANCEL", reason: "ACCEPT_TIMEOUT" })]);
    expect((await lookup(h, maker, accepted)).body.data.lastStatus).toBe("CONFIRMED");
    await eventually(() => received("/p1", lapsing).length === 2);
    expect(received("/p1", lapsing)[1].json.affiliateReservation.action).toBe("CANCEL");
    await eventually(() => hooks(lapsing).some((w) => w.json.data.reason === "ACCEPT_TIMEOUT"));
    expect((await watch()).claimed).toBe(0);
  });
});

let day = 0;
/** Books p1's option of a fresh network quote (a pickup on another day each time: the vehicles booked before are held). */
async function quoteAndBook(maxFee: string, over: Record<string, unknown> = {}) {
  const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip(6 * 3600 + ++day * 86_400) });
  expect(q.status).toBe(200);
  const option = q.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === p1.netid);
  const res = await h.request("POST", `/api/quotes/${q.body.data.quoteId}/book`, {
    headers: bearer(maker),
    body: { quoteOptionId: option.quoteOptionId, requesterResNo: `CASQ-${++resNo}`, passengers: [{ firstName: "Ada", lastName: "Lovelace" }], fallback: { maxFee }, ...over },
  });
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

describe("the cascade (docs/terms.md#the-cascade-fallback)", () => {
  test("REJECT, then a lapse, then none left: the booking moves cheapest first and ends NO_PROVIDER_ACCEPTED", async () => {
    rewind(900);
    const id = await quoteAndBook("1000.00", { acceptWithinMinutes: 2 });
    await eventually(() => received("/p1", id).length === 1);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    let read = (await lookup(h, maker, id)).body.data;
    expect(read).toMatchObject({ providerId: p2.netid, lastStatus: "BOOKING_REQUEST", transactionId: id });
    expect(read.offers.map((o: { provider: string; reason?: string }) => [o.provider, o.reason ?? null])).toEqual([
      [p1.netid, "PROVIDER_REJECTED"],
      [p2.netid, null],
    ]);
    expect(read.tripPacket.changeLogs.at(-1).changeDesc).toContain(`offer moved from ${p1.netid} to ${p2.netid}`);
    await eventually(() => hooks(id).some((w) => w.json.type === "booking.reassigned"));
    expect(hooks(id).find((w) => w.json.type === "booking.reassigned")!.json).toMatchObject({ from: p1.netid, to: p2.netid, reason: "PROVIDER_REJECTED" });
    await eventually(() => received("/p2", id).length === 1);
    expect(received("/p2", id)[0].json.affiliateReservation).toMatchObject({ action: "NEW", providerId: p2.netid });
    // The one that rejected is not told again; the one that lapses is sent CANCEL, and learns nothing of the next.
    clock.advance(121);
    expect((await watch()).moved).toBe(1);
    read = (await lookup(h, maker, id)).body.data;
    expect(read.providerId).toBe(p3.netid);
    await eventually(() => received("/p2", id).length === 2 && received("/p3", id).length === 1);
    const cancel = received("/p2", id)[1].json;
    expect(cancel.affiliateReservation).toMatchObject({ action: "CANCEL", providerId: p2.netid });
    expect(JSON.stringify(cancel)).not.toContain(p3.netid);
    clock.advance(121);
    expect((await watch()).ended).toBe(1);
    read = (await lookup(h, maker, id)).body.data;
    expect(read).toMatchObject({ lastStatus: "REJECT", reason: "NO_PROVIDER_ACCEPTED", providerId: p3.netid });
    expect(read.offers).toHaveLength(3);
    await eventually(() => received("/p3", id).length === 2);
    expect(received("/p1", id)).toHaveLength(1);
    // Each vehicle held while offered is released: the last booking's hold ended with it.
    const holds = await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM vehicle_holds WHERE transaction_id = ?", id);
    expect(Number(holds[0].n)).toBeLessThanOrEqual(1);
  });

  test("a provider that cannot be delivered to (FAILED after the last retry): the booking moves on, reason DELIVERY_FAILED", async () => {
    rewind(600);
    rx.state.respond = (r) => (r.path === "/p1" ? new Response("down", { status: 503 }) : Response.json({}));
    try {
      const id = await quoteAndBook("1000.00");
      let status = "";
      for (let i = 0; i < 200 && status !== "FAILED"; i++) {
        await Bun.sleep(50);
        status = (await lookup(h, maker, id)).body.data.lastStatus;
      }
      expect(status).toBe("FAILED");
      rewind(0); // the delivery worker records the failure at real time
      expect((await watch()).moved).toBe(1);
      const read = (await lookup(h, maker, id)).body.data;
      expect(read).toMatchObject({ providerId: p2.netid, lastStatus: "BOOKING_REQUEST" });
      expect(read.offers[0]).toMatchObject({ provider: p1.netid, reason: "DELIVERY_FAILED" });
      await eventually(() => received("/p2", id).length === 1);
      // The CANCEL to the unreachable provider fails too; its failure leaves the moved booking alone.
      await eventually(() => received("/p1", id).some((m) => m.json.affiliateReservation.action === "CANCEL"));
      await Bun.sleep(300);
      expect((await lookup(h, maker, id)).body.data).toMatchObject({ providerId: p2.netid, lastStatus: "BOOKING_REQUEST" });
    } finally {
      rx.state.respond = undefined;
    }
  });

  test("maxFee caps the options: none within it ends the booking at the first cause", async () => {
    const id = await quoteAndBook("0.01");
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    // Ended by this pass, or by the service's own watch, which may hold the booking's lease at this moment: the
    // booking ends within seconds either way, and never moves.
    expect((await watch()).moved).toBe(0);
    let read = (await lookup(h, maker, id)).body.data;
    for (let i = 0; i < 100 && read.reason === undefined; i++) {
      await Bun.sleep(50);
      await watch();
      read = (await lookup(h, maker, id)).body.data;
    }
    expect(read).toMatchObject({ lastStatus: "REJECT", reason: "NO_PROVIDER_ACCEPTED", providerId: p1.netid });
  });

  test("the watch's own timer (a short real interval) moves a lapsed booking within a second", async () => {
    rewind(61);
    const id = await quoteAndBook("1000.00", { acceptWithinMinutes: 1 });
    const stop = startOfferWatch(h.services, 100);
    try {
      rewind(0);
      const started = Date.now();
      let read = (await lookup(h, maker, id)).body.data;
      while (read.providerId === p1.netid && Date.now() - started < 5000) {
        await Bun.sleep(50);
        read = (await lookup(h, maker, id)).body.data;
      }
      expect(read.providerId).toBe(p2.netid);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(read.offers[0]).toMatchObject({ provider: p1.netid, reason: "ACCEPT_TIMEOUT" });
    } finally {
      await stop();
    }
  });
});
