import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, type Harness } from "../../../support/harness";
import { integrate, lookup, providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { startReceiver } from "../../../support/receiver";
import { ADA, bearer, bookQuoted, iso, jfkTrip } from "../../../support/jfk";
import { cascadeWorld, eventually, logWatchFailure, receivedBy, rewinder, watchUntilClaimed } from "../../../support/cascade";
import { watchOffers } from "../../../../domain/usecases/offer-watch";
import { RETENTION_JOBS } from "../../../../adapters/sql/retention";
import { RETENTION } from "../../../../domain/retention";

/**
 * The cascade within the trip, through HTTP on both databases (docs/terms.md#deadlines-within-the-trip,
 * docs/terms.md#give-back, docs/terms.md#each-provider-its-own-terms): acceptBy never later than 30 min before the
 * pickup (5 min when that is sooner), no re-offer after it, a move re-checks the next provider's notice, the stored
 * quote kept while a booking of it may move; a provider's CANCEL after accepting moves the booking on; each provider
 * held to its own terms, the requester told the price and whether the terms changed; sameClassOrBetter. Deadlines are
 * waited out on a clock set in the past and moved forward (never past real time: the outbox sends at real time).
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = rewinder(clock);
let h: Harness;
let maker: Party, p1: Party, p2: Party, p3: Party;
const rx = startReceiver();
let resNo = 0;
let slot = 0;

const trip = (pickupAt: number) => jfkTrip(iso(pickupAt));
/** A pickup `seconds` from the clock's now, a few minutes apart from every other test's (each books its vehicles). */
const pickupIn = (seconds: number) => clock.now() + seconds + ++slot * 7 * 60;
const { received, hooks } = receivedBy(rx);
const read = async (id: string) => (await lookup(h, maker, id)).body.data;

/** A network quote of the trip and p1's option booked with a fallback (and `over`). */
async function quoteAndBook(pickupAt: number, over: Record<string, unknown> = {}) {
  const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip(pickupAt) });
  expect(q.status).toBe(200);
  const options = q.body.data.options as Array<{ provider: { netid: string }; quoteOptionId: string; fee: string; terms: unknown }>;
  const option = options.find((o) => o.provider.netid === p1.netid)!;
  const res = await bookQuoted(h, maker, q.body.data.quoteId, option.quoteOptionId, `DL-${++resNo}`, { fallback: { maxFee: "1000.00" }, ...over });
  expect(res.status).toBe(200);
  const of = (who: Party) => options.find((o) => o.provider.netid === who.netid)!;
  return { id: res.body.transactionId as string, quoteId: q.body.data.quoteId as string, of };
}
/** One watch pass that found something due, tried for up to a second. */
const watch = () => watchUntilClaimed(h.services.offers, 50, 20, logWatchFailure);

beforeAll(async () => {
  // TWO's own terms: free until a day before, then half the fare (ONE keeps the default: free until 1 h before).
  const policies = { cancellation: [{ beforeMinutes: 1440, percent: 0 }, { beforeMinutes: 0, percent: 50 }] };
  ({ h, maker, p1, p2, p3 } = await cascadeWorld(
    clock,
    rx,
    ["DL-BOOK", "DL-ONE", "DL-TWO", "DL-THREE"],
    [["dl-one-suv", "50.00", "SUV"], ["dl-two-sedan", "60.00", "SEDAN"], ["dl-three-suv", "70.00", "SUV"]],
    { webhooks: true, settle: async (harness, [, two]) => expect((await integrate(harness, two, { policies })).status).toBe(200) },
  ));
}, 60_000);

afterAll(async () => {
  await h.close();
  rx.stop();
});

describe("deadlines within the trip (docs/terms.md#deadlines-within-the-trip)", () => {
  test("acceptBy is never later than 30 min before the pickup; 5 min when that is sooner (a pickup close or just past); acceptWithinMinutes sooner still", async () => {
    const regular = (pickupAt: number, over: Record<string, unknown> = {}) =>
      sendTrip(h, maker, {
        reservationType: "REGULAR",
        ...trip(pickupAt),
        passengers: ADA,
        affiliateReservation: { requesterId: maker.netid, requesterResNo: `DLR-${++resNo}`, providerId: p1.netid, action: "NEW" },
        ...over,
      });
    const now = clock.now();
    const cases: Array<[pickupAt: number, over: Record<string, unknown>, acceptBy: number]> = [
      [now + 50 * 60, {}, now + 20 * 60],
      [now + 32 * 60, {}, now + 5 * 60],
      [now + 32 * 60, { acceptWithinMinutes: 2 }, now + 2 * 60],
      [now - 10 * 60, {}, now + 5 * 60],
      [now + 10 * 3600, {}, now + 30 * 60],
    ];
    for (const [pickupAt, over, acceptBy] of cases) {
      const res = await regular(pickupAt, over);
      expect(res.status).toBe(200);
      expect((await read(res.body.transactionId)).acceptBy).toBe(iso(acceptBy));
    }
  });

  test("a move 31 min before the pickup gives the next provider 5 min; a REJECT 29 min before ends the booking NO_PROVIDER_ACCEPTED, offered to nobody else", async () => {
    rewind(20 * 60);
    const pickupAt = clock.now() + 45 * 60;
    const { id } = await quoteAndBook(pickupAt);
    expect((await read(id)).acceptBy).toBe(iso(pickupAt - 30 * 60));
    clock.advance(14 * 60);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    let data = await read(id);
    expect(data).toMatchObject({ providerId: p2.netid, acceptBy: iso(clock.now() + 5 * 60) });
    clock.advance(2 * 60);
    expect(clock.now()).toBeGreaterThan(pickupAt - 30 * 60);
    expect((await providerUpdate(h, p2, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).ended).toBe(1);
    data = await read(id);
    expect(data).toMatchObject({ lastStatus: "REJECT", reason: "NO_PROVIDER_ACCEPTED", providerId: p2.netid });
    expect(data.offers.map((o: { provider: string }) => o.provider)).toEqual([p1.netid, p2.netid]);
    await eventually(() => hooks(id).some((w) => w.json.type === "booking.status_changed" && w.json.data.reason === "NO_PROVIDER_ACCEPTED"));
    expect(received("/p3", id)).toEqual([]);
  });

  test("a lapse at acceptBy 30 min before the pickup is the last chance: the next offer gets 5 min, then the booking ends", async () => {
    rewind(25 * 60);
    const pickupAt = clock.now() + 40 * 60;
    const { id } = await quoteAndBook(pickupAt);
    clock.t = pickupAt - 30 * 60;
    expect((await watch()).moved).toBe(1);
    expect(await read(id)).toMatchObject({ providerId: p2.netid, acceptBy: iso(clock.now() + 5 * 60) });
    clock.advance(5 * 60);
    expect((await watch()).ended).toBe(1);
    expect(await read(id)).toMatchObject({ lastStatus: "REJECT", reason: "NO_PROVIDER_ACCEPTED" });
    expect(received("/p3", id)).toEqual([]);
  });

  test("a move re-checks the next provider's minimum notice at the moment of the move", async () => {
    rewind(600);
    const { id } = await quoteAndBook(pickupIn(3 * 3600));
    expect((await integrate(h, p2, { minimumNoticeMinutes: 240 })).status).toBe(200);
    try {
      expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
      expect((await watch()).moved).toBe(1);
      expect((await read(id)).providerId).toBe(p3.netid);
    } finally {
      expect((await integrate(h, p2, { minimumNoticeMinutes: 0 })).status).toBe(200);
    }
  });

  test("the stored quote is kept while a booking made from it may still move; without a fallback it goes after its validity", async () => {
    rewind(600);
    const pickupAt = pickupIn(5 * 86_400);
    const { id, quoteId } = await quoteAndBook(pickupAt);
    const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip(pickupAt + 3600) });
    const kept = async (quote: string) => (await h.rows<{ k: number | string }>("SELECT kept_until AS k FROM network_quotes WHERE quote_id = ?", quote)).map((r) => Number(r.k));
    expect(await kept(quoteId)).toEqual([pickupAt]);
    // Retention three days on (past the quote's validity and the day it is kept after): the cascade's quote stays.
    const [, table, condition] = RETENTION_JOBS.find(([period]) => period === "networkQuotes")!;
    await h.rows(`DELETE FROM ${table} WHERE ${condition}`, clock.now() + 3 * 86_400 - RETENTION.networkQuotes);
    expect(await kept(quoteId)).toEqual([pickupAt]);
    expect(await kept(q.body.data.quoteId)).toEqual([]);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect((await read(id)).providerId).toBe(p2.netid);
  });
});

describe("give-back (docs/terms.md#give-back)", () => {
  test("a provider's CANCEL after it accepted moves a booking with a fallback on, reason PROVIDER_GAVE_BACK; the provider is sent nothing more", async () => {
    rewind(600);
    const { id } = await quoteAndBook(pickupIn(8 * 3600));
    await eventually(() => received("/p1", id).length === 1);
    expect((await providerUpdate(h, p1, id, { status: "CONFIRMED" })).status).toBe(200);
    expect((await providerUpdate(h, p1, id, { status: "CANCEL" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    const data = await read(id);
    expect(data).toMatchObject({ providerId: p2.netid, lastStatus: "BOOKING_REQUEST" });
    expect(data.offers[0]).toMatchObject({ provider: p1.netid, status: "CANCEL", reason: "PROVIDER_GAVE_BACK" });
    await eventually(() => hooks(id).some((w) => w.json.type === "booking.reassigned"));
    expect(hooks(id).find((w) => w.json.type === "booking.reassigned")!.json).toMatchObject({ from: p1.netid, to: p2.netid, reason: "PROVIDER_GAVE_BACK" });
    await eventually(() => received("/p2", id).length === 1);
    expect(received("/p1", id)).toHaveLength(1);
  });

  test("a provider's CANCEL before it accepted is a decline: the booking moves on, reason PROVIDER_REJECTED", async () => {
    rewind(600);
    const { id } = await quoteAndBook(pickupIn(9 * 3600));
    expect((await providerUpdate(h, p1, id, { status: "CANCEL" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect((await read(id)).offers[0]).toMatchObject({ provider: p1.netid, status: "CANCEL", reason: "PROVIDER_REJECTED" });
  });

  test("without a fallback a give-back ends the booking CANCEL, the offer's reason PROVIDER_GAVE_BACK; nothing moves", async () => {
    rewind(600);
    const { id } = await quoteAndBook(pickupIn(10 * 3600), { fallback: undefined });
    expect((await providerUpdate(h, p1, id, { status: "CONFIRMED" })).status).toBe(200);
    expect((await providerUpdate(h, p1, id, { status: "CANCEL" })).status).toBe(200);
    expect((await watchOffers(h.services.offers)).moved).toBe(0);
    const data = await read(id);
    expect(data).toMatchObject({ providerId: p1.netid, lastStatus: "CANCEL" });
    expect(data.reason).toBeUndefined();
    expect(data.offers).toEqual([expect.objectContaining({ provider: p1.netid, status: "CANCEL", reason: "PROVIDER_GAVE_BACK" })]);
  });
});

describe("each provider held to its own terms (docs/terms.md#each-provider-its-own-terms)", () => {
  test("after a move the booking carries the next provider's terms; booking.reassigned says the price before and after and that the terms changed; offers[] shows each offer's terms", async () => {
    rewind(600);
    const { id, of } = await quoteAndBook(pickupIn(30 * 3600));
    const before = await read(id);
    expect(before.terms).toEqual(of(p1).terms);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    const data = await read(id);
    expect(data.terms).toEqual(of(p2).terms);
    expect(data.terms).not.toEqual(before.terms);
    expect(data.terms.cancellation.at(-1).percent).toBe(50);
    expect(data.offers.map((o: { terms: unknown }) => o.terms)).toEqual([of(p1).terms, of(p2).terms]);
    await eventually(() => hooks(id).some((w) => w.json.type === "booking.reassigned"));
    const moved = hooks(id).find((w) => w.json.type === "booking.reassigned")!.json;
    expect(moved).toMatchObject({ priceChange: { from: of(p1).fee, to: of(p2).fee, currency: "USD" }, termsChanged: true });
    expect(moved.priceChange.fromCurrency).toBeUndefined();
    // The next provider's delivery carries its own terms.
    await eventually(() => received("/p2", id).length === 1);
    expect(received("/p2", id)[0].json.terms).toEqual(of(p2).terms);
    // The cancellation fee follows the terms the booking has now.
    expect((await providerUpdate(h, p2, id, { status: "CONFIRMED" })).status).toBe(200);
    const fee = await h.request("GET", `/api/reservation/${id}/cancel-fee`, { headers: bearer(maker) });
    expect(fee.body.data.freeUntil).toBe((of(p2).terms as { freeCancellationUntil: string }).freeCancellationUntil);
  });

  test("fallback.sameClassOrBetter never moves to a smaller class: an SUV booking skips the cheaper sedan; not a boolean is 400", async () => {
    rewind(600);
    const bad = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip(pickupIn(40 * 3600)) });
    const option = bad.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === p1.netid);
    const refused = await h.request("POST", `/api/quotes/${bad.body.data.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: `DL-${++resNo}`, passengers: [{ firstName: "A", lastName: "B" }], fallback: { maxFee: "500", sameClassOrBetter: "yes" } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(["fallback.sameClassOrBetter"]);
    const { id } = await quoteAndBook(pickupIn(41 * 3600), { fallback: { maxFee: "1000.00", sameClassOrBetter: true } });
    expect((await read(id)).fallback).toEqual({ maxFee: "1000.00", sameClassOrBetter: true });
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect((await read(id)).providerId).toBe(p3.netid);
    expect(received("/p2", id)).toEqual([]);
  });
});
