import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { watchOffers, type OfferWatchDeps } from "../../../domain/usecases/offer-watch";
import { lastOfferAt, MAX_REOFFERS, MIN_ANSWER_SECONDS, offerDue, offerTerms } from "../../../domain/trips/offers";
import { asCurrentProvider, asFormerProvider } from "../../../domain/trips/offer-views";
import { bookingView } from "../../../domain/trips/booking-view";
import { checkProviderUpdate, decideProviderUpdate } from "../../../domain/trips/provider-update";
import { isoAt, type Booking } from "../../../domain/trips/booking";
import type { NetworkQuote, NetworkQuoteOption } from "../../../domain/pricing/network-quote";
import type { Integration } from "../../../domain/delivery/integration";

/**
 * The cascade as a model (docs/terms.md#deadlines-within-the-trip, docs/terms.md#who-sees-what): the offer watch runs
 * on a fake clock over an in-memory booking, while its providers decline, accept and give back, fail to be reached or
 * let acceptBy pass, over random pickups (from just past to days ahead), random answer times and notices. Whatever
 * happens: no offer is made after pickup − 30 min, the booking always has exactly one current provider (the last
 * offer's, every earlier offer ended), no provider is offered it twice, every deadline lies within the trip (or 5 min
 * after an offer made later), a provider's view never shows the fallback or another provider, and once the pickup has
 * passed nothing is left waiting for an answer.
 */

const PROVIDERS = ["PROV-A", "PROV-B", "PROV-C", "PROV-D", "PROV-E", "PROV-F", "PROV-G"];
const T0 = 1_800_000_000;

type Action = "REJECT" | "CONFIRM" | "GIVE_BACK" | "FAIL" | "LAPSE" | "WAIT";
const scenario = fc.record({
  providers: fc.integer({ min: 1, max: PROVIDERS.length }),
  pickupLead: fc.oneof(fc.integer({ min: -15 * 60, max: 2 * 3600 }), fc.integer({ min: 2 * 3600, max: 4 * 86_400 })),
  acceptWithinMinutes: fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined }),
  fallback: fc.boolean(),
  answers: fc.array(fc.option(fc.integer({ min: 5, max: 120 }), { nil: undefined }), { minLength: PROVIDERS.length, maxLength: PROVIDERS.length }),
  notices: fc.array(fc.constantFrom(0, 0, 0, 60, 240), { minLength: PROVIDERS.length, maxLength: PROVIDERS.length }),
  steps: fc.array(
    fc.record({ action: fc.constantFrom<Action>("REJECT", "CONFIRM", "GIVE_BACK", "FAIL", "LAPSE", "WAIT"), delay: fc.integer({ min: 0, max: 6 * 3600 }) }),
    { maxLength: 14 },
  ),
});

function option(netid: string, i: number): NetworkQuoteOption {
  const fee = (100 + i * 10).toFixed(2);
  return {
    quoteOptionId: `${netid}:car-${i}`,
    provider: { netid, name: netid },
    code: `car-${i}`,
    name: `Car ${i}`,
    description: "",
    vehType: "SEDAN",
    passengerCount: "3",
    fee,
    currency: "USD",
    nearestKm: 1,
    images: [],
    breakdown: [{ kind: "BASE", id: "own-rates", name: "Own rates", amount: fee }],
  };
}

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The world one scenario runs in: the booking, its quote, the providers' settings, a clock the test moves. */
function world(s: Scenario) {
  const clock = { t: T0, now: () => clock.t };
  const pickupDate = T0 + s.pickupLead;
  const netids = PROVIDERS.slice(0, s.providers);
  const options = netids.map(option);
  const quote: NetworkQuote = {
    quoteId: "q-1", makerNetid: "REQUESTER", makerUid: "u", createdAt: T0, validUntil: T0 + 86_400, currency: "USD", trip: {}, pricedTrip: "", options, warnings: [],
  };
  const integrations = new Map<string, Partial<Integration>>(
    netids.map((n, i) => [n, { minimumNoticeMinutes: s.notices[i], ...(s.answers[i] !== undefined ? { policies: { acceptWithinMinutes: s.answers[i] } } : {}) }]),
  );
  const first = options[0];
  const fees = [{ type: "OTHER", code: first.code, fee: first.fee, currency: "USD", vehType: "SEDAN" }];
  const trip = { reservationType: "REGULAR" as const, passengerCount: "2", locations: { pickup: { address: "JFK", time: isoAt(pickupDate) } }, passengers: [], fees };
  let booking: Booking = {
    transactionId: "t-1", requesterId: "REQUESTER", requesterResNo: "R-1", providerId: first.provider.netid, providerResNo: null, status: "BOOKING_REQUEST",
    userid: "u", sourcePlatform: "x", targetPlatform: "y", submitDate: T0, pickupDate, updatedAt: T0, totalAmount: first.fee, quoteValidUntil: null,
    contentHash: "h", action: "NEW", notes: "", quoted: { quoteId: quote.quoteId, code: first.code, lines: 1 }, trip, changeLogs: [], transactionErrors: [],
    ...offerTerms(
      { providerId: first.provider.netid, acceptWithinMinutes: s.acceptWithinMinutes, ...(s.fallback ? { fallback: { maxFee: "10000" } } : {}) },
      T0, pickupDate, first.fee, trip, s.answers[0],
    ),
  };
  const deps: OfferWatchDeps = {
    bookings: {
      findById: async () => booking,
      change: async (_ref, decide) => {
        const d = decide(booking);
        if (d.write) booking = d.write.booking;
        return d.result;
      },
    },
    deadlines: { claimDue: async (now) => (offerDue(booking) !== null && offerDue(booking)! <= now ? [booking.transactionId] : []) },
    networkQuotes: { find: async () => quote },
    admission: {
      integrations: { get: async (n: string) => integrations.get(n) as Integration | undefined },
      partnerships: { find: async () => undefined, vehicleTypes: async () => new Map() },
    } as unknown as OfferWatchDeps["admission"],
    airports: { lookup: () => undefined },
    clock,
  };
  /** The current provider's update, as it would send it; one the lifecycle refuses changes nothing. */
  const update = (status: string) => {
    try {
      const d = decideProviderUpdate(booking, checkProviderUpdate({ status }), { now: clock.t, netid: booking.providerId, uid: "ops" });
      if (d.write) booking = d.write.booking;
    } catch {
      // INVALID_TRANSITION: not a move this provider may make now.
    }
  };
  return { clock, deps, pickupDate, update, get booking() { return booking; } };
}

/** Everything that must hold of the booking whatever happened so far. */
function invariants(b: Booking, pickupDate: number) {
  const offers = b.offers!;
  expect(offers.length).toBeGreaterThanOrEqual(1);
  expect(offers.length - 1).toBeLessThanOrEqual(MAX_REOFFERS);
  // Exactly one current provider: the last offer's; every earlier offer ended.
  expect(b.providerId).toBe(offers.at(-1)!.provider);
  for (const o of offers.slice(0, -1)) expect(o.ended !== undefined && o.reason !== undefined).toBe(true);
  expect(new Set(offers.map((o) => o.provider)).size).toBe(offers.length);
  // No offer after pickup − 30 min (the first is the booking itself, made whenever a NEW may be).
  for (const o of offers.slice(1)) expect(Date.parse(o.at) / 1000).toBeLessThanOrEqual(lastOfferAt(pickupDate));
  const offeredAt = Date.parse(offers.at(-1)!.at) / 1000;
  if (offers.at(-1)!.reason === undefined) {
    expect(b.acceptBy!).toBeLessThanOrEqual(Math.max(lastOfferAt(pickupDate), offeredAt + MIN_ANSWER_SECONDS));
    expect(b.acceptBy!).toBeGreaterThanOrEqual(offeredAt + 60);
  }
  // A provider sees no fallback and no other provider; one that lost it nothing of those after it.
  const current = JSON.stringify(bookingView(asCurrentProvider(b)));
  expect(current).not.toContain("10000");
  for (const o of offers.slice(0, -1)) expect(current).not.toContain(o.provider);
  offers.slice(0, -1).forEach((o, k) => {
    const former = JSON.stringify(bookingView(asFormerProvider(b, k)));
    for (const later of offers.slice(k + 1)) expect(former).not.toContain(later.provider);
    expect(former).not.toContain("10000");
  });
}

describe("the cascade over random declines, lapses and give-backs (a fake clock)", () => {
  test("no offer after pickup − 30 min, one current provider, deadlines within the trip, each provider sees its own offer only", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const w = world(s);
        invariants(w.booking, w.pickupDate);
        for (const step of s.steps) {
          if (step.action === "LAPSE") w.clock.t = Math.max(w.clock.t, w.booking.acceptBy ?? w.clock.t);
          else w.clock.t += step.delay;
          await watchOffers(w.deps);
          invariants(w.booking, w.pickupDate);
          if (step.action === "REJECT") w.update("REJECT");
          else if (step.action === "CONFIRM") w.update("CONFIRMED");
          else if (step.action === "GIVE_BACK") w.update(w.booking.status === "BOOKING_REQUEST" ? "CONFIRMED" : "CANCEL");
          else if (step.action === "FAIL") w.update("FAILED");
          await watchOffers(w.deps);
          invariants(w.booking, w.pickupDate);
        }
        // After the pickup nothing waits for an answer: every offer was accepted, or lapsed and the booking moved or ended.
        w.clock.t = Math.max(w.clock.t, w.pickupDate + 3600);
        await watchOffers(w.deps);
        invariants(w.booking, w.pickupDate);
        expect(["BOOKING_REQUEST", "PENDING"]).not.toContain(w.booking.status);
        if (w.booking.status === "REJECT" && w.booking.reason === undefined) expect(s.fallback).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});
