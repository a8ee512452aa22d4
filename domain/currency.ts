import currencyCodes from "currency-codes";

/** ISO 4217 facts the domain needs; the adapter reads them from maintained packages. */
export interface CurrencyDirectory {
  /** Digits after the decimal point of a currency's minor unit (JPY 0, USD 2, BHD 3); undefined for an unknown code. */
  minorUnit(code: string): number | undefined;
  /** The currency of a country (ISO 3166-1 alpha-2), when known. */
  ofCountry(country: string): string | undefined;
}

/** The minor unit assumed for a currency the directory does not know. */
export const DEFAULT_MINOR_UNIT = 2;

/** The digits of `code`'s minor unit, DEFAULT_MINOR_UNIT for an unknown one. */
export function minorUnitOf(currencies: Pick<CurrencyDirectory, "minorUnit">, code: string | undefined): number {
  return (code ? currencies.minorUnit(code.trim().toUpperCase()) : undefined) ?? DEFAULT_MINOR_UNIT;
}

const AMOUNT = /^(\d{1,12})(?:\.(\d{1,4}))?$/;

/**
 * A decimal amount string in units of 1/10,000 (fleet rates have at most 2 decimals, minor units at most 4, so
 * every amount this service reads is exact in it); undefined when it is not one.
 */
export function toTenThousandths(amount: string): number | undefined {
  const m = AMOUNT.exec(amount.trim());
  if (!m) return undefined;
  return Number(m[1]) * 10_000 + Number((m[2] ?? "0").padEnd(4, "0"));
}

/** An amount in 1/10,000 rounded half up to the currency's minor unit: a whole number of minor units. */
export function roundToMinorUnits(tenThousandths: number, digits: number): number {
  const step = 10 ** (4 - digits);
  return Math.floor((tenThousandths + step / 2) / step);
}

/** A whole number of minor units as a decimal string with the currency's digits: (5000, 0) → "5000", (12500, 3) → "12.500". */
export function formatMinorUnits(units: number, digits: number): string {
  if (digits === 0) return String(units);
  const scale = 10 ** digits;
  const whole = Math.floor(units / scale);
  return `${whole}.${String(units % scale).padStart(digits, "0")}`;
}

/** A decimal amount string formatted with the currency's digits (rounded half up); undefined when it is not an amount. */
export function formatAmount(amount: string, digits: number): string | undefined {
  const v = toTenThousandths(amount);
  return v === undefined ? undefined : formatMinorUnits(roundToMinorUnits(v, digits), digits);
}

/**
 * ISO 4217 codes that name no money a fare is paid in: precious metals (XAU, XAG, XPD, XPT), bond-market units,
 * SDR, the ADB and Sucre units, fund codes (USN, CLF, …), the testing code XTS and XXX ("no currency").
 */
const NOT_FARE_CURRENCIES: ReadonlySet<string> = new Set([
  "XAG", "XAU", "XPD", "XPT", "XBA", "XBB", "XBC", "XBD", "XDR", "XSU", "XUA", "XTS", "XXX",
  "BOV", "CHE", "CHW", "CLF", "COU", "MXV", "USN", "UYI", "UYW",
]);
/** Codes newer than the packaged table: XCG (Caribbean guilder, 2025). */
const NEWER_CURRENCIES = ["XCG"];
/** The active ISO 4217 currencies a fare may be priced in (the maintained `currency-codes` table, less the above). */
const FARE_CURRENCIES: ReadonlySet<string> = new Set([
  ...currencyCodes.data.filter((c) => typeof c.digits === "number" && !NOT_FARE_CURRENCIES.has(c.code)).map((c) => c.code),
  ...NEWER_CURRENCIES,
]);

/** Digits of a fare currency's minor unit (JPY 0, USD 2, BHD 3) from the same table; undefined for a code it refuses. */
export function fareMinorUnit(code: string): number | undefined {
  if (fareCurrencyProblem(code)) return undefined;
  return currencyCodes.code(code)?.digits ?? DEFAULT_MINOR_UNIT;
}

/** "has 2 decimals; JPY has none": why an amount has more decimals than its currency's minor unit, or undefined. */
export function minorUnitProblem(decimals: number, currency: string): string | undefined {
  const digits = fareMinorUnit(currency);
  if (digits === undefined || decimals <= digits) return undefined;
  return `has ${decimals} decimal${decimals === 1 ? "" : "s"}; ${currency} has ${digits === 0 ? "none" : digits}`;
}

/**
 * Why a currency code where money enters (fee lines, provider updates, fleet rates, settings) is refused, or
 * undefined: three capital letters naming an active ISO 4217 currency; `usd`, `ZZZ`, XAU or XTS are refused.
 */
export function fareCurrencyProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || !/^[A-Z]{3}$/.test(value)) return "must be an ISO 4217 currency code in capital letters, e.g. USD or EUR";
  if (NOT_FARE_CURRENCIES.has(value)) return `${value} is not a currency a fare is paid in (precious metals, funds and testing codes are refused)`;
  if (!FARE_CURRENCIES.has(value)) return `${value} is not an ISO 4217 currency code`;
  return undefined;
}
