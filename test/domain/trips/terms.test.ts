import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cancelFeeAt, cancellationFeeLine, checkPolicies, percentOf, termsFor, type Policies } from "../../../domain/trips/terms";
import type { FieldError } from "../../../domain/errors";

/** The worked example of docs/terms.md, number for number: policies → quote terms → late cancel fee. */
const DOC = readFileSync(join(import.meta.dir, "../../../docs/terms.md"), "utf8");
const at = (iso: string) => Date.parse(iso) / 1000;
const POLICIES: Policies = {
  cancellation: [
    { beforeMinutes: 180, percent: 0 },
    { beforeMinutes: 60, percent: 50 },
    { beforeMinutes: 0, percent: 100 },
  ],
  freeWaitingMinutes: { airport: 45, other: 10 },
};
/** Pickup at SFO, 08:00 local on 2027-01-15: 16:00 UTC. */
const PICKUP = at("2027-01-15T16:00:00Z");
const terms = termsFor(POLICIES, PICKUP, { hourly: false, airport: true });
/** Booked and accepted by the provider (CONFIRMED): its terms apply from now on. */
const booking = {
  status: "CONFIRMED" as const,
  terms,
  totalAmount: "100.00",
  trip: { reservationType: "REGULAR" as const, passengerCount: "3", locations: { pickup: {} }, passengers: [], fees: [{ code: "terms-sedan", fee: "100.00", currency: "USD" }] },
};
const oneLine = (s: string) => s.replace(/\s+/g, " ");

describe("docs/terms.md's worked example", () => {
  test("the policies are the page's", () => {
    const errors: FieldError[] = [];
    expect(checkPolicies(POLICIES, undefined, errors)).toEqual(POLICIES);
    for (const tier of POLICIES.cancellation!) expect(DOC).toContain(`{ "beforeMinutes": ${tier.beforeMinutes}, "percent": ${tier.percent} }`);
    expect(DOC).toContain('"freeWaitingMinutes": { "airport": 45, "other": 10 }');
  });

  test("the quote's terms are the page's", () => {
    expect(terms).toEqual({
      freeCancellationUntil: "2027-01-15T13:00:00Z",
      cancellation: [
        { until: "2027-01-15T13:00:00Z", percent: 0 },
        { until: "2027-01-15T15:00:00Z", percent: 50 },
        { until: "2027-01-15T16:00:00Z", percent: 100 },
      ],
      freeWaitingMinutes: 45,
      assignBy: "2027-01-15T14:00:00Z",
    });
    expect(DOC).toContain(`"freeCancellationUntil": "${terms.freeCancellationUntil}"`);
    for (const tier of terms.cancellation) expect(DOC).toContain(`{ "until": "${tier.until}", "percent": ${tier.percent} }`);
    expect(DOC).toContain(`"freeWaitingMinutes": ${terms.freeWaitingMinutes},\n`);
    expect(DOC).toContain(`"assignBy": "${terms.assignBy}"\n`);
  });

  test("the fee at 12:30, 13:30 and 15:30 UTC, and the fee line, are the page's", () => {
    const free = cancelFeeAt(booking, at("2027-01-15T12:30:00Z"));
    expect(free).toEqual({ fee: "0.00", currency: "USD", percent: 0, freeUntil: "2027-01-15T13:00:00Z", reason: "FREE_WINDOW", fare: "100.00" });
    expect(DOC).toContain(
      `{"fee": "0.00", "currency": "USD", "percent": 0, "freeUntil": "2027-01-15T13:00:00Z", "reason": "FREE_WINDOW", "fare": "100.00"}`,
    );
    const late = cancelFeeAt(booking, at("2027-01-15T13:30:00Z"));
    expect(late).toEqual({ fee: "50.00", currency: "USD", percent: 50, freeUntil: "2027-01-15T13:00:00Z", reason: "LATE_CANCELLATION", fare: "100.00" });
    expect(DOC).toContain(
      `{ "success": true, "data": { "fee": "50.00", "currency": "USD", "percent": 50, "freeUntil": "2027-01-15T13:00:00Z", "reason": "LATE_CANCELLATION", "fare": "100.00" } }`,
    );
    // Before the provider accepts, free at any hour.
    expect(cancelFeeAt({ ...booking, status: "BOOKING_REQUEST" }, at("2027-01-15T15:30:00Z"))).toMatchObject({ fee: "0.00", reason: "NOT_ACCEPTED" });
    expect(DOC).toContain('`"fee": "0.00"` with `"reason": "NOT_ACCEPTED"`');
    const line = cancellationFeeLine(late);
    expect(oneLine(DOC)).toContain(oneLine(JSON.stringify(line).replace(/,"/g, ', "').replace(/":/g, '": ').replace(/^\{/, "{ ").replace(/\}$/, " }")));
    expect(cancelFeeAt(booking, at("2027-01-15T15:30:00Z")).fee).toBe("100.00");
    expect(DOC).toContain('would cost `"100.00"` (100 %)');
  });
});

describe("terms rules", () => {
  test("HOURLY trips default to free until 24 h before; the provider's own tiers apply to them too", () => {
    expect(termsFor(undefined, PICKUP, { hourly: true, airport: false }).freeCancellationUntil).toBe("2027-01-14T16:00:00Z");
    expect(termsFor(undefined, PICKUP, { hourly: false, airport: false })).toMatchObject({ freeCancellationUntil: "2027-01-15T15:00:00Z", freeWaitingMinutes: 15 });
    expect(termsFor(POLICIES, PICKUP, { hourly: true, airport: false })).toMatchObject({ freeCancellationUntil: "2027-01-15T13:00:00Z", freeWaitingMinutes: 10 });
  });

  test("no free tier first: freeCancellationUntil null; amounts in their own minor unit, half up", () => {
    expect(termsFor({ cancellation: [{ beforeMinutes: 0, percent: 20 }] }, PICKUP, { hourly: false, airport: false }).freeCancellationUntil).toBeNull();
    expect(percentOf("5001", 50)).toBe("2501");
    expect(percentOf("12.345", 10)).toBe("1.235");
    expect(percentOf("99.99", 33)).toBe("33.00");
  });
});
