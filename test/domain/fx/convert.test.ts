import { describe, expect, test } from "bun:test";
import { FeeConverter } from "../../../domain/fx/convert";

// docs/fx.md#what-a-network-quote-shows: a fee shown converted is fee × the rate shown, half up, to the target's minor
// unit — exactly, and in digits however large (never `2.35e+22`).
const digits: Record<string, number> = { EUR: 2, USD: 2, GBP: 2, JPY: 0, KWD: 3, IRR: 2, VND: 0 };
const currencies = { minorUnit: (code: string) => digits[code] };
const table = { date: "2024-06-28", rates: { USD: 1.0705, GBP: 0.84638, JPY: 171.94, KWD: 0.3282, IRR: 45064.3, VND: 1_000_000 } };

describe("FeeConverter", () => {
  test("the docs' examples: 110.00 USD and 90.00 GBP in EUR", () => {
    const eur = new FeeConverter(table, "EUR", currencies);
    expect(eur.convert(11000, "USD")).toEqual({ fee: "102.76", currency: "EUR", rate: 0.93414292, rateDate: "2024-06-28" });
    expect(eur.convert(9000, "GBP")).toMatchObject({ fee: "106.34", rate: 1.1815024 });
    expect(eur.convert(9000, "EUR")).toMatchObject({ fee: "90.00", rate: 1 });
  });

  test("half up on the exact product, across minor units: 0.005 up, JPY none, KWD three decimals", () => {
    const half = new FeeConverter({ date: "2024-06-28", rates: { USD: 1.5, JPY: 150, KWD: 0.5 } }, "USD", currencies);
    // 0.01 EUR × 1.5 = 0.015 USD → 0.02; 1 JPY = 0.01 USD exactly; 0.001 KWD × 3 = 0.003 USD → 0.00.
    expect(half.convert(1, "EUR")?.fee).toBe("0.02");
    expect(half.convert(1, "JPY")?.fee).toBe("0.01");
    expect(half.convert(1, "KWD")?.fee).toBe("0.00");
    expect(new FeeConverter({ date: "2024-06-28", rates: { KWD: 0.5 } }, "KWD", currencies).convert(12345, "EUR")?.fee).toBe("61.725");
  });

  test("the largest fees at the largest rates are written out in digits, exactly", () => {
    // 2^53 − 1 fils (KWD, 3 decimals) into VND at 1,000,000 per EUR: 9,007,199,254,740.991 KWD × 3,046,922.6 (the rate
    // shown) = 27,444,238,971,973,482,623.5… VND, half up.
    const vnd = new FeeConverter(table, "VND", currencies).convert(Number.MAX_SAFE_INTEGER, "KWD")!;
    expect(vnd).toMatchObject({ fee: "27444238971973482624", rate: 3046922.6 });
    // Into IRR (two decimals) at 45,064.3 per EUR: 90,071,992,547,409.91 EUR × 45,064.3.
    expect(new FeeConverter(table, "IRR", currencies).convert(Number.MAX_SAFE_INTEGER, "EUR")!.fee).toBe("4059031293754244407.21");
  });

  test("no rate, no conversion", () => {
    expect(new FeeConverter(table, "EUR", currencies).convert(100, "CHF")).toBeUndefined();
  });
});
