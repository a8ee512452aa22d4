import { describe, expect, test } from "bun:test";
import type { Booking, Fee } from "../../../domain/trips/booking";
import { cancellableFare, providerFare, quotedLineCount, sameAmount, sumAmounts } from "../../../domain/trips/fare-lines";
import { cancelFeeAt, cancelFeeNow, cancellationFeeApplies, checkPolicies, termsFor } from "../../../domain/trips/terms";
import { acceptByFor } from "../../../domain/trips/offers";
import type { FieldError } from "../../../domain/errors";

/** docs/terms.md#the-price-is-the-sum-of-its-lines: the rule as pure functions, number for number. */

const VAN: Fee = { type: "OTHER", code: "narita-van", name: "Narita van", fee: "30000", currency: "JPY" };
const TOLL: Fee = { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "1200" };
const PARKING: Fee = { type: "EXPENSE", code: "PARKING", name: "Parking", fee: "800" };
/** A 30,000 JPY booking made from a quote. */
const quotedBooking = (fees: Fee[] = [VAN], total = "30000") =>
  ({ quoted: { code: "narita-van", lines: 1 }, totalAmount: total, trip: { fees } }) as unknown as Booking;
const fields = (r: { errors: FieldError[] }) => r.errors.map((e) => e.field);

describe("sums in minor units, never floats", () => {
  test("exact sums, as many decimals as the most precise amount", () => {
    expect(sumAmounts(["110.00", "7.5"])).toBe("117.50");
    expect(sumAmounts(["30000", "1200", "800"])).toBe("32000");
    expect(sumAmounts(["0.1", "0.2"])).toBe("0.3");
    expect(sumAmounts(["12.500", "0.125"])).toBe("12.625");
    expect(sumAmounts(["999999999999.99", "0.01"])).toBe("1000000000000.00");
    expect(sumAmounts([])).toBeUndefined();
    expect(sameAmount("240.5", "240.50")).toBe(true);
    expect(sameAmount("99000", "30000")).toBe(false);
  });
});

describe("a provider's write of the price", () => {
  test("the rewrite refused: 99,000 as the total with the old lines is 400 naming totalAmount", () => {
    const r = providerFare(quotedBooking(), { totalAmount: "99000", fees: [VAN] });
    expect(fields(r)).toEqual(["totalAmount"]);
    expect(r.errors[0].message).toContain("30000 JPY");
    expect(fields(providerFare(quotedBooking(), { totalAmount: "99000" }))).toEqual(["totalAmount"]);
  });

  test("a quoted line changed or left out is 400 naming it", () => {
    expect(fields(providerFare(quotedBooking(), { fees: [{ ...VAN, fee: "99000" }] }))).toEqual(["fees[0].fee"]);
    expect(fields(providerFare(quotedBooking(), { fees: [{ ...VAN, code: "other-van" }] }))).toEqual(["fees[0].code"]);
    expect(fields(providerFare(quotedBooking(), { fees: [TOLL] }))).toEqual(["fees[0].code"]);
    expect(fields(providerFare(quotedBooking(), { fees: [] }))).toEqual(["fees"]);
  });

  test("added lines: CHARGE, EXPENSE, EXTRA_SERVICE with an amount in the booking's currency, summed", () => {
    const r = providerFare(quotedBooking(), { fees: [{ code: "narita-van", fee: "30000" }, TOLL, PARKING] });
    expect(r.errors).toEqual([]);
    // The quoted line is kept as booked, not as echoed.
    expect(r.fees).toEqual([VAN, TOLL, PARKING]);
    expect(r.totalAmount).toBe("32000");
    expect(r.described).toEqual([
      "fee line added: CHARGE TOLL (Tolls) 1200 JPY",
      "fee line added: EXPENSE PARKING (Parking) 800 JPY",
      "totalAmount 30000 → 32000",
    ]);
    const bad = providerFare(quotedBooking(), { fees: [VAN, { type: "DISCOUNT", fee: "100" }, { type: "CHARGE" }, { ...TOLL, currency: "USD" }] });
    expect(fields(bad)).toEqual(["fees[1].type", "fees[2].fee", "fees[3].currency"]);
    expect(fields(providerFare(quotedBooking(), { fees: [VAN, TOLL], totalAmount: "31000" }))).toEqual(["totalAmount"]);
  });

  test("added lines may change or go; the quoted line stays", () => {
    const b = quotedBooking([VAN, TOLL, PARKING], "32000");
    expect(quotedLineCount(b)).toBe(1);
    const r = providerFare(b, { fees: [VAN, { ...TOLL, fee: "1500" }], totalAmount: "31500" });
    expect(r.errors).toEqual([]);
    expect(r.described).toEqual([
      "fee line changed: CHARGE TOLL (Tolls) 1200 JPY → CHARGE TOLL (Tolls) 1500 JPY",
      "fee line removed: EXPENSE PARKING (Parking) 800 JPY",
      "totalAmount 32000 → 31500",
    ]);
  });

  test("a trip sent without a price: the provider's lines, or a total alone while no line is priced", () => {
    const direct = { totalAmount: null, trip: { fees: [] } } as unknown as Booking;
    expect(providerFare(direct, { totalAmount: "240.00" })).toMatchObject({ errors: [], totalAmount: "240.00" });
    const lines = providerFare(direct, { fees: [{ type: "BASE", fee: "200.50" }, { type: "GRATUITY", fee: "40.00" }] });
    expect(lines).toMatchObject({ errors: [], totalAmount: "240.50" });
    expect(fields(providerFare(direct, { fees: [{ type: "GRATUITY", fee: "40.00" }], totalAmount: "240.50" }))).toEqual(["totalAmount"]);
    expect(fields(providerFare(direct, { fees: [{ fee: "1", currency: "USD" }, { fee: "2", currency: "EUR" }] }))).toEqual(["fees[1].currency"]);
  });
});

describe("the cancellation fee", () => {
  const pickup = Date.parse("2027-01-15T16:00:00Z") / 1000;
  const terms = termsFor({ cancellation: [{ beforeMinutes: 180, percent: 0 }, { beforeMinutes: 60, percent: 50 }, { beforeMinutes: 0, percent: 100 }] }, pickup, {
    hourly: false,
    airport: true,
  });
  const at = Date.parse("2027-01-15T13:30:00Z") / 1000;

  test("a percent of the quoted lines only, never of lines added later", () => {
    const b = { ...quotedBooking([VAN, TOLL, PARKING], "32000"), status: "CONFIRMED", terms } as Booking;
    expect(cancellableFare(b)).toBe("30000");
    expect(cancelFeeAt(b, at)).toMatchObject({ fee: "15000", percent: 50, reason: "LATE_CANCELLATION", fare: "30000", currency: "JPY" });
  });

  test("free while the provider has not accepted; the reason says why", () => {
    const b = { ...quotedBooking(), terms } as Booking;
    for (const status of ["BOOKING_REQUEST", "PENDING", "FAILED"] as const)
      expect(cancelFeeNow({ ...b, status }, at)).toMatchObject({ fee: "0", percent: 0, reason: "NOT_ACCEPTED" });
    expect(cancelFeeNow({ ...b, status: "PASSENGER_ON_BOARD" }, at)).toMatchObject({ fee: "0", reason: "NOT_CANCELLABLE" });
    expect(cancelFeeNow({ ...b, status: "CONFIRMED" }, at - 3600)).toMatchObject({ fee: "0", reason: "FREE_WINDOW" });
  });

  test("CANCELLATION_FEE_APPLIES counts the options already past their free window", () => {
    const paid = termsFor(undefined, pickup, { hourly: false, airport: false });
    expect(cancellationFeeApplies([{ terms: paid }, { terms: paid }, { terms }], pickup - 30 * 60)).toMatchObject({ code: "CANCELLATION_FEE_APPLIES", count: 3 });
    expect(cancellationFeeApplies([{ terms: paid }, { terms }], pickup - 2 * 3600)).toMatchObject({ count: 1 });
    expect(cancellationFeeApplies([{ terms: paid }, { terms }], pickup - 4 * 3600)).toBeUndefined();
  });
});

describe("fair policies", () => {
  test("tiers must cost more as the pickup nears", () => {
    const check = (cancellation: unknown) => {
      const errors: FieldError[] = [];
      return { policies: checkPolicies({ cancellation }, undefined, errors), errors };
    };
    expect(check([{ beforeMinutes: 0, percent: 100 }, { beforeMinutes: 1440, percent: 0 }, { beforeMinutes: 120, percent: 50 }]).errors).toEqual([]);
    const cheaper = check([{ beforeMinutes: 1440, percent: 50 }, { beforeMinutes: 60, percent: 10 }]);
    expect(cheaper.policies).toBeUndefined();
    expect(cheaper.errors.map((e) => e.field)).toEqual(["policies.cancellation"]);
    expect(cheaper.errors[0].message).toContain("costs less than");
    expect(check([{ beforeMinutes: 120, percent: 50 }, { beforeMinutes: 60, percent: 50 }]).errors.map((e) => e.field)).toEqual(["policies.cancellation"]);
  });

  test("a provider's acceptWithinMinutes (5–1,440) shortens acceptBy", () => {
    const errors: FieldError[] = [];
    expect(checkPolicies({ acceptWithinMinutes: 20 }, undefined, errors)).toEqual({ acceptWithinMinutes: 20 });
    for (const bad of [4, 1441, 12.5, "20"]) {
      const e: FieldError[] = [];
      checkPolicies({ acceptWithinMinutes: bad }, undefined, e);
      expect(e.map((x) => x.field)).toEqual(["policies.acceptWithinMinutes"]);
    }
    expect(checkPolicies({ acceptWithinMinutes: null }, { acceptWithinMinutes: 20 }, errors)).toEqual({});
    const now = 1_800_000_000;
    const inThreeDays = now + 3 * 86_400 + 3600;
    expect(acceptByFor(now, inThreeDays)).toBe(now + 24 * 3600);
    expect(acceptByFor(now, inThreeDays, undefined, 20)).toBe(now + 20 * 60);
    expect(acceptByFor(now, inThreeDays, 10, 20)).toBe(now + 10 * 60);
    // Never later than the lead-time tier.
    expect(acceptByFor(now, now + 3600, undefined, 600)).toBe(now + 30 * 60);
  });
});
