import { minorUnitOf, type CurrencyDirectory } from "../currency";
import { ValidationError, type FieldError } from "../errors";
import { amountParts, exactInMinorUnit, roundedToMinorUnit } from "../money";
import type { Fee } from "./booking";

/** The currency facts amounts need. */
export type MinorUnits = Pick<CurrencyDirectory, "minorUnit">;

/**
 * Without a currency directory every currency has two decimals (the exchange's behaviour before
 * docs/integration.md#what-a-quote-offers-service-area-currency-warnings).
 */
export const TWO_DECIMAL_UNITS: MinorUnits = { minorUnit: () => undefined };

const currencyOfLine = (fee: Fee) => (typeof fee.currency === "string" && fee.currency.trim() !== "" ? fee.currency.trim().toUpperCase() : undefined);

/**
 * A booking's currency (docs/integration.md#what-a-quote-offers-service-area-currency-warnings): the currency its fee
 * lines name (a converted quote's option names it);
 * undefined when none does (an old booking, a trip without fees) — its amounts then have two decimals.
 */
export function currencyOfFees(fees: readonly Fee[] | undefined): string | undefined {
  for (const fee of fees ?? []) {
    const c = currencyOfLine(fee);
    if (c !== undefined) return c;
  }
  return undefined;
}

/** Amounts a party writes into a booking: its price and its fee lines, as checked (any decimals) but not yet in a currency. */
export interface WrittenAmounts {
  totalAmount?: string;
  fees?: Fee[];
}

type Fit = (amount: string, digits: number, field: string, currency: string | undefined) => string | undefined;

/**
 * The write's amounts fitted to a currency: by default the one its lines name, else the booking's; with
 * `bookingFirst` (a provider's price, docs/terms.md#the-price-is-the-sum-of-its-lines) the booking's, else the lines'.
 */
function inCurrency(written: WrittenAmounts, bookingFees: readonly Fee[], units: MinorUnits, bookingFirst: boolean, fit: Fit): WrittenAmounts {
  const currency = bookingFirst
    ? (currencyOfFees(bookingFees) ?? currencyOfFees(written.fees))
    : (currencyOfFees(written.fees) ?? currencyOfFees(bookingFees));
  const out: WrittenAmounts = {};
  if (written.totalAmount !== undefined) {
    const total = fit(written.totalAmount, minorUnitOf(units, currency), "totalAmount", currency);
    if (total !== undefined) out.totalAmount = total;
  }
  if (written.fees !== undefined)
    out.fees = written.fees.map((fee, i) => {
      if (fee.fee === undefined || fee.fee === "") return fee;
      const lineCurrency = currencyOfLine(fee) ?? currency;
      const amount = fit(fee.fee, minorUnitOf(units, lineCurrency), `fees[${i}].fee`, lineCurrency);
      return amount === undefined ? fee : { ...fee, fee: amount };
    });
  return out;
}

const decimalsWord = (n: number) => (n === 0 ? "none" : `${n}`);

/**
 * A party's own write (a provider's providerUpdate…, a requester's sendTrip NEW or UPDATE: totalAmount, fees) in
 * the booking's currency's minor unit: JPY "5000" → "5000", BHD "12.5" → "12.500", no currency → two decimals.
 * More significant decimals than the currency has is an error naming every such field ("has 2 decimals; JPY has
 * none"): the party can send the right amount. The errors are returned, for a caller that reports them with others.
 */
export function exactAmountsInCurrency(
  written: WrittenAmounts,
  bookingFees: readonly Fee[],
  units: MinorUnits,
  bookingFirst = false,
): { amounts: WrittenAmounts; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const amounts = inCurrency(written, bookingFees, units, bookingFirst, (amount, digits, field, currency) => {
    const parts = amountParts(amount);
    if (!parts) return undefined; // not an amount: refused where it was read
    const exact = exactInMinorUnit(parts, digits);
    if (exact === undefined)
      errors.push({
        field,
        message: `has ${parts.decimals.length} decimal${parts.decimals.length === 1 ? "" : "s"}; ${currency ?? "a booking without a currency"} has ` +
          `${decimalsWord(digits)}`,
      });
    return exact;
  });
  return { amounts, errors };
}

/**
 * A provider's own write (providerUpdate…) in the booking's currency's minor unit (with `bookingFirst`, the booking's
 * currency before the one the write's lines name: a price sums one currency): too many decimals is 400 naming each field.
 */
export function providerAmountsInCurrency(written: WrittenAmounts, bookingFees: readonly Fee[], units: MinorUnits, bookingFirst = false): WrittenAmounts {
  const { amounts, errors } = exactAmountsInCurrency(written, bookingFees, units, bookingFirst);
  if (errors.length > 0) throw new ValidationError(errors);
  return amounts;
}

/**
 * A requester's own fee lines on a sendTrip UPDATE, by the same rule as a provider's write: the currency the lines
 * name, else the booking's stored one, else two decimals; too many decimals is 400 naming each `fees[i].fee`.
 */
export function requesterFeesInCurrency(fees: Fee[], bookingFees: readonly Fee[], units: MinorUnits): Fee[] {
  return providerAmountsInCurrency({ fees }, bookingFees, units).fees ?? fees;
}

/**
 * A farm-in partner's reply (totalAmount, fees) in the booking's currency's minor unit, rounded half up as quotes
 * are priced: the delivery already succeeded, so the reply cannot be refused.
 */
export function partnerAmountsInCurrency(written: WrittenAmounts, bookingFees: readonly Fee[], units: MinorUnits): WrittenAmounts {
  return inCurrency(written, bookingFees, units, true, (amount, digits) => {
    const parts = amountParts(amount);
    return parts ? roundedToMinorUnit(parts, digits) : undefined;
  });
}
