import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { lookup, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { bearer, iso, jfkSedan } from "../../../support/jfk";
import { watchOffers } from "../../../../domain/usecases/offer-watch";

/**
 * The provider record counts offers (docs/terms.md#provider-record): a booking the cascade moved on
 * (docs/terms.md#the-cascade-fallback) keeps counting for the provider that declined it, and the next provider is
 * judged by its own answer, never by the one before it.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let maker: Party, first: Party, next: Party;

const trip = (pickupIn: number) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time: iso(clock.now() + pickupIn) },
    dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
  },
});
const record = (netid: string) => h.request("GET", `/api/providers/${netid}/record`, { headers: bearer(maker) });
let day = 0;
let resNo = 0;

/** Books the first provider's option of a fresh network quote (each on another day: a booked vehicle is held). */
async function bookFirst(fallback: boolean): Promise<string> {
  const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip(6 * 3600 + ++day * 86_400) });
  expect(q.status).toBe(200);
  const option = q.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === first.netid);
  const res = await h.request("POST", `/api/quotes/${q.body.data.quoteId}/book`, {
    headers: bearer(maker),
    body: {
      quoteOptionId: option.quoteOptionId,
      requesterResNo: `RECQ-${++resNo}`,
      passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
      ...(fallback ? { fallback: { maxFee: "1000.00" } } : {}),
    },
  });
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

async function answer(who: Party, id: string, status: string) {
  expect((await providerUpdate(h, who, id, { status })).status).toBe(200);
}

const moved: string[] = [];

/** A REGULAR trip `from` sends `to` directly (not from a quote): its transactionId. */
async function direct(from: Party, to: Party): Promise<string> {
  const res = await sendTrip(h, from, {
    reservationType: "REGULAR",
    ...trip(6 * 3600 + ++day * 86_400),
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    affiliateReservation: { requesterId: from.netid, requesterResNo: `RECD-${++resNo}`, providerId: to.netid, action: "NEW" },
  });
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

beforeAll(async () => {
  h = createHarness({ clock });
  [maker, first, next] = await Promise.all([party(h, "RECC-BOOK", "CO"), party(h, "RECC-FIRST", "IO"), party(h, "RECC-NEXT", "IO")]);
  await jfkSedan(h, first.netid, "recc-first-car", "50.00");
  await jfkSedan(h, next.netid, "recc-next-car", "60.00");
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
  // The first provider is offered 18 bookings (docs/terms.md#provider-record's worked example): it accepts 7, declines
  // 5 that have a fallback (they move on to the next provider) and 6 that have none (they end REJECT with it).
  for (let i = 0; i < 18; i++) {
    const id = await bookFirst(i >= 7 && i < 12);
    clock.advance(30);
    await answer(first, id, i < 7 ? "CONFIRMED" : "REJECT");
    if (i >= 7 && i < 12) moved.push(id);
  }
  let passes = 0;
  for (let n = 0; n < moved.length && passes < 50; passes++) n += (await watchOffers(h.services.offers)).moved;
  // The next provider accepts the 5 it was offered (and, below, 5 bookings sent to it directly).
  for (const id of moved) {
    clock.advance(60);
    await answer(next, id, "CONFIRMED");
  }
  // Not counted for the first provider: 2 trips the requester cancels before it answers, 3 it sends itself.
  for (const [from, n] of [[maker, 2], [first, 3]] as const) {
    for (let i = 0; i < n; i++) {
      const id = await direct(from, first);
      if (from === maker) expect((await h.request("POST", `/Platform.svc/cancelTripByTransactionId/${id}/V1`, { headers: { token: maker.token } })).status).toBe(200);
      else await answer(first, id, "CONFIRMED");
    }
  }
  for (let i = 0; i < 5; i++) {
    const id = await direct(maker, next);
    clock.advance(60);
    await answer(next, id, "CONFIRMED");
  }
}, 120_000);

afterAll(async () => {
  await h.close();
});

describe("the record after the cascade moved bookings on", () => {
  test("the moved bookings are the next provider's now", async () => {
    for (const id of moved) expect((await lookup(h, maker, id)).body.data).toMatchObject({ providerId: next.netid, lastStatus: "CONFIRMED" });
  });

  test("offered 18: the first provider's record shows 18 offers and 38.9 % accepted (7 of 18), 11 declined", async () => {
    const res = await record(first.netid);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      offers: 18, requesters: 1, awaiting: 0, acceptedPct: 38.9, medianAcceptSeconds: 30, providerCancelPct: 61.1, onTimePct: null, bookings: 18,
    });
  });

  test("the next provider is judged by its own answers: 10 offers, all accepted, none declined, each timed from its own offer", async () => {
    const res = await record(next.netid);
    expect(res.body.data).toEqual({
      offers: 10, requesters: 1, awaiting: 0, acceptedPct: 100, medianAcceptSeconds: 60, providerCancelPct: 0, onTimePct: null, bookings: 10,
    });
  });

  test('sort: "reliability" ranks by those records: the next provider first, though dearer', async () => {
    const res = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: { ...trip(6 * 3600 + ++day * 86_400), sort: "reliability" } });
    expect(res.status).toBe(200);
    const options = res.body.data.options as Array<{ provider: { netid: string; record: { acceptedPct: number } } }>;
    expect(options.map((o) => o.provider.netid)).toEqual([next.netid, first.netid]);
    expect(options.map((o) => o.provider.record.acceptedPct)).toEqual([100, 38.9]);
  });
});
