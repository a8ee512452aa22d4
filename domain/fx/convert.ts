import { minorUnitOf, type CurrencyDirectory } from "../currency";
import { writeUnits } from "../money";
import { crossRate, type FxTable } from "./fx-table";

/** An amount as shown converted for the viewer: in `currency`'s minor unit, at `rate` (units of it per unit of the fee's), of `rateDate`. */
export interface ConvertedFee {
  fee: string;
  currency: string;
  rate: number;
  rateDate: string;
}

/** Significant digits of a cross rate as shown; the conversion uses the rate shown, so fee × rate gives the amount. */
const RATE_DIGITS = 8;

/**
 * Converts fees of any currency into one target through the FX table (cross rates through EUR), rounded half up to
 * the target's minor unit. The same conversion ranks a network quote's options and is shown on each of them.
 */
export class FeeConverter {
  private readonly rates = new Map<string, number | undefined>();
  readonly targetDigits: number;

  constructor(
    readonly table: FxTable,
    readonly target: string,
    private readonly currencies: Pick<CurrencyDirectory, "minorUnit">,
  ) {
    this.targetDigits = minorUnitOf(currencies, target);
  }

  /** The rate shown for `from` → target; undefined when the table has none. */
  rateOf(from: string): number | undefined {
    if (this.rates.has(from)) return this.rates.get(from);
    const raw = crossRate(this.table, from, this.target);
    const rate = raw === undefined ? undefined : Number(raw.toPrecision(RATE_DIGITS));
    this.rates.set(from, rate);
    return rate;
  }

  /** `minorUnits` of `from` in the target's minor units; undefined without a rate. */
  units(minorUnits: number, from: string): number | undefined {
    const rate = this.rateOf(from);
    if (rate === undefined) return undefined;
    if (from === this.target) return minorUnits;
    const exact = (minorUnits / 10 ** minorUnitOf(this.currencies, from)) * rate * 10 ** this.targetDigits;
    // Half up, forgiving the float's last bits (12.5 computed as 12.4999999999 still rounds up).
    return Math.floor(exact + 0.5 + 1e-9);
  }

  /**
   * The fee of `from` as shown converted; undefined without a rate. Worked out exactly from the rate shown (fee × rate,
   * half up), in whole numbers however large: a fee of 2^53 minor units at a rate of a million is written out in
   * digits, never as `2.35e+22` (docs/fx.md#what-a-network-quote-shows).
   */
  convert(minorUnits: number, from: string): ConvertedFee | undefined {
    const rate = this.rateOf(from);
    if (rate === undefined) return undefined;
    const units = from === this.target ? BigInt(minorUnits) : exactUnits(minorUnits, minorUnitOf(this.currencies, from), rate, this.targetDigits);
    return { fee: writeUnits(units, this.targetDigits), currency: this.target, rate, rateDate: this.table.date };
  }
}

/** `units` minor units of a currency with `fromDigits` decimals at `rate`, in minor units of one with `toDigits`: exact, half up. */
function exactUnits(units: number, fromDigits: number, rate: number, toDigits: number): bigint {
  // The rate as the shortest decimal that reads back as it (what the answer shows): mantissa digits × 10^exponent.
  const [mantissa, exponent] = rate.toExponential().split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  let numerator = BigInt(Math.round(units)) * BigInt(whole + fraction);
  let denominator = 1n;
  const shift = toDigits - fromDigits + Number(exponent) - fraction.length;
  if (shift >= 0) numerator *= 10n ** BigInt(shift);
  else denominator = 10n ** BigInt(-shift);
  return (numerator * 2n + denominator) / (denominator * 2n);
}
