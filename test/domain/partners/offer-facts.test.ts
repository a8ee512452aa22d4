import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { offersOf, type RecordBooking } from "../../../domain/partners/offer-facts";
import { onTime, providerRecordOf } from "../../../domain/partners/provider-record";
import { isoAt, type Booking, type ChangeLog } from "../../../domain/trips/booking";
import { decideCancelTrip } from "../../../domain/trips/decisions";
import { decideOfferDue, firstOffer, type NextOffer } from "../../../domain/trips/offers";
import { checkProviderUpdate, decideProviderUpdate } from "../../../domain/trips/provider-update";

/**
 * What each offer of a booking tells the provider record (docs/terms.md#provider-record), on bookings moved along by
 * the cascade's own decisions: every offer is read from its own lines, so no provider is charged with another's answer.
 */

const T0 = 1_800_000_000;
const PROVIDERS = ["P-ONE", "P-TWO", "P-THREE", "P-FOUR", "P-FIVE", "P-SIX"];
type Action = "accept" | "reject" | "lapse" | "withdraw";

function newBooking(): Booking {
  const b: Booking = {
    transactionId: "0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20",
    requesterId: "REQ-CO",
    requesterResNo: "R-1",
    providerId: PROVIDERS[0],
    providerResNo: null,
    status: "BOOKING_REQUEST",
    userid: "req-user",
    sourcePlatform: "TripSwitch",
    targetPlatform: "TripSwitch",
    submitDate: T0,
    pickupDate: T0 + 4 * 3600,
    updatedAt: T0,
    totalAmount: "100.00",
    quoteValidUntil: null,
    contentHash: "h",
    action: "NEW",
    notes: "",
    trip: { reservationType: "REGULAR", passengerCount: "2", locations: { pickup: { address: "JFK" } }, passengers: [], fees: [] },
    quoted: { quoteId: "q-1", code: "c0", lines: 0 },
    acceptBy: T0 + 600,
    fallback: { maxFee: "1000.00" },
    changeLogs: [{ timestamp: isoAt(T0), changeSource: "requester:req-user", changeDesc: `trip sent to ${PROVIDERS[0]}: status BOOKING_REQUEST` }],
    transactionErrors: [],
  };
  return { ...b, offers: [firstOffer(b, T0)] };
}

const nextOffer = (k: number): NextOffer | undefined =>
  k < PROVIDERS.length ? { provider: PROVIDERS[k], code: `c${k}`, fee: "100.00", currency: "USD", fees: [{ code: `c${k}`, fee: "100.00", currency: "USD" } as never] } : undefined;

function written(decision: { write?: { booking: Booking } }): Booking {
  if (!decision.write) throw new Error("nothing written");
  return decision.write.booking;
}

const byProvider = (b: Booking, status: string, now: number) =>
  written(decideProviderUpdate(b, checkProviderUpdate({ status }), { now, netid: b.providerId, uid: b.providerId }));

/** The booking after each offered provider's action in turn, as the exchange's decisions write it; and when each offer was made. */
function run(actions: readonly Action[]): { booking: Booking; offeredAt: number[] } {
  let b = newBooking();
  let now = T0;
  const offeredAt = [T0];
  for (let k = 0; k < actions.length; k++) {
    now += 30;
    const action = actions[k];
    if (action === "accept") {
      b = byProvider(b, "CONFIRMED", now);
      b = byProvider(b, "ON_LOCATION", now + 60);
      break;
    }
    if (action === "withdraw") {
      b = written(decideCancelTrip(b, undefined, { now, netid: b.requesterId, uid: "req-user" }));
      break;
    }
    if (action === "reject") b = byProvider(b, "REJECT", now);
    else now = b.acceptBy! + 1;
    now += 2;
    b = written(decideOfferDue(b, now, nextOffer(k + 1)));
    if (b.status !== "BOOKING_REQUEST") break;
    offeredAt.push(now);
  }
  return { booking: b, offeredAt };
}

const asRead = (b: Booking, changeLogs: ChangeLog[] = b.changeLogs): RecordBooking => ({
  transactionId: b.transactionId,
  providerId: b.providerId,
  requesterId: b.requesterId,
  status: b.status,
  submitDate: b.submitDate,
  pickupDate: b.pickupDate,
  changeLogs: JSON.stringify(changeLogs),
  offers: JSON.stringify(b.offers),
});

describe("offersOf on bookings the cascade moved", () => {
  test("declined, lapsed, then accepted: each provider its own answer, each timed from its own offer", () => {
    const { booking, offeredAt } = run(["reject", "lapse", "accept"]);
    expect(booking.providerId).toBe("P-THREE");
    const facts = offersOf(asRead(booking));
    expect(facts.map((f) => [f.provider, f.accepted, f.providerEnded, f.counted, f.awaiting])).toEqual([
      ["P-ONE", false, true, true, false],
      ["P-TWO", false, false, true, false],
      ["P-THREE", true, false, true, false],
    ]);
    expect(facts.map((f) => f.offeredAt)).toEqual(offeredAt);
    expect(facts[2].acceptedAt! - facts[2].offeredAt).toBe(30);
    expect(facts[2].onLocationAt).toBe(facts[2].acceptedAt! + 60);
    expect(facts[0].onLocationAt).toBeUndefined();
  });

  test("a history cut short: the earlier offers are told by their reasons, the current one by its status", () => {
    const { booking } = run(["reject", "lapse", "accept"]);
    const kept: ChangeLog[] = [{ timestamp: isoAt(T0), changeSource: "TRIMMED", changeDesc: "7 earlier changes not kept" }, ...booking.changeLogs.slice(-1)];
    const facts = offersOf(asRead(booking, kept));
    expect(facts.map((f) => [f.provider, f.accepted, f.providerEnded])).toEqual([
      ["P-ONE", false, true],
      ["P-TWO", false, false],
      ["P-THREE", true, false],
    ]);
  });

  test("a give-back (an earlier offer's reason PROVIDER_GAVE_BACK) counts as accepted and cancelled", () => {
    const { booking } = run(["lapse"]);
    const offers = booking.offers!.map((o, i) => (i === 0 ? { ...o, reason: "PROVIDER_GAVE_BACK" } : o));
    const [gaveBack] = offersOf({ ...asRead(booking), offers: JSON.stringify(offers) });
    expect([gaveBack.accepted, gaveBack.providerEnded]).toEqual([true, true]);
  });

  test("not counted: the requester's cancel before an answer, and a provider's booking with itself", () => {
    const { booking } = run(["reject", "withdraw"]);
    expect(offersOf(asRead(booking)).map((f) => [f.provider, f.counted])).toEqual([
      ["P-ONE", true],
      ["P-TWO", false],
    ]);
    const self = run(["accept"]).booking;
    expect(offersOf({ ...asRead(self), requesterId: "p-one" })[0].counted).toBe(false);
    // A cancel after the provider accepted still counts: the provider answered.
    const accepted = byProvider(newBooking(), "CONFIRMED", T0 + 10);
    const cancelled = written(decideCancelTrip(accepted, undefined, { now: T0 + 20, netid: "REQ-CO", uid: "req-user" }));
    expect(offersOf(asRead(cancelled))[0]).toMatchObject({ counted: true, accepted: true });
  });

  test("a booking read without its offers is one offer to its provider, made when sent or when its quote was converted", () => {
    const b = newBooking();
    expect(offersOf({ ...asRead(b), offers: null })).toMatchObject([{ provider: "P-ONE", offeredAt: T0, awaiting: true }]);
    const converted: ChangeLog = { timestamp: isoAt(T0 + 900), changeSource: "requester:req-user", changeDesc: "status QUOTE → BOOKING_REQUEST (quote converted into a booking)" };
    expect(offersOf({ ...asRead(b, [...b.changeLogs, converted]), offers: null })[0].offeredAt).toBe(T0 + 900);
  });
});

describe("on time", () => {
  test("from the arrival where positions tell it, else from ON_LOCATION, at or before the pickup", () => {
    expect(onTime(1000, 990)).toBe(true);
    expect(onTime(1000, 1001)).toBe(false);
    expect(onTime(1000, 990, 1010)).toBe(false);
    expect(onTime(1000, 1010, 1000)).toBe(true);
    expect(onTime(1000)).toBeUndefined();
  });

  test("the arrival counts for the current offer only when it came after that offer was made", () => {
    const { booking, offeredAt } = run(["reject", "accept"]);
    const facts = (arrivedAt: number) => offersOf({ ...asRead(booking), arrivedAt }).map((f) => f.arrivedAt);
    expect(facts(offeredAt[1] + 100)).toEqual([undefined, offeredAt[1] + 100]);
    // An arrival before the move (the chauffeur of a provider that gave the booking back) is not the next provider's.
    expect(facts(offeredAt[1] - 1)).toEqual([undefined, undefined]);
  });
});

describe("the record agrees with the offers made (property)", () => {
  test("random declines, lapses, acceptances and withdrawals: every provider's record counts exactly its own offers and answers", () => {
    const action = fc.constantFrom<Action>("accept", "reject", "lapse", "withdraw");
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 6 }), (actions) => {
        const { booking } = run(actions);
        const facts = offersOf(asRead(booking));
        const offered = booking.offers!.length;
        expect(facts.map((f) => f.provider)).toEqual(PROVIDERS.slice(0, offered));
        facts.forEach((f, k) => {
          // No action left: the last provider offered has not answered yet.
          const a = (k < actions.length ? actions[k] : "awaiting") as Action | "awaiting";
          expect(f.accepted).toBe(a === "accept");
          expect(f.providerEnded).toBe(a === "reject");
          expect(f.counted).toBe(a !== "withdraw");
          expect(f.awaiting).toBe(a === "awaiting");
          const record = providerRecordOf([f]);
          expect([record.offers, record.awaiting]).toEqual([a === "withdraw" ? 0 : 1, a === "awaiting" ? 1 : 0]);
        });
      }),
      { numRuns: 300 },
    );
  });
});
