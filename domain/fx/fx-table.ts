import type { FieldError } from "../errors";
import { fareCurrencyProblem } from "../currency";

/**
 * The exchange's FX table: euro reference rates (units of a currency per 1 EUR) of one day, as the ECB publishes
 * them daily. Every conversion goes through EUR (cross rates), so the table holds one rate per currency.
 */
export interface FxTable {
  /** The rates' day, YYYY-MM-DD. */
  date: string;
  /** Units of each currency per 1 EUR (EUR itself is 1 and not listed). */
  rates: Readonly<Record<string, number>>;
}

/** The base every rate is quoted against. */
export const FX_BASE = "EUR" as const;
/** Rates older than this (days before today) are stale: a quote converting with them says so. */
export const FX_STALE_AFTER_DAYS = 7;
/** At most this many currencies in a table (the ECB publishes about 30). */
export const MAX_FX_CURRENCIES = 200;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `date` is a real calendar day written YYYY-MM-DD. */
function isDay(date: string): boolean {
  const m = DAY.exec(date);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * Every problem of a table read from a file, each naming its place (`date`, `rates.USD`): a real day not after
 * `today`, at least one currency, each an ISO 4217 fare currency once, each rate a positive finite number.
 */
export function fxTableProblems(table: { date: string; rates: ReadonlyArray<[string, string]> }, today: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!isDay(table.date)) errors.push({ field: "date", message: `"${table.date}" is not a date (YYYY-MM-DD)` });
  else if (table.date > today) errors.push({ field: "date", message: `${table.date} is in the future` });
  if (table.rates.length === 0) errors.push({ field: "rates", message: "no currency rate found" });
  if (table.rates.length > MAX_FX_CURRENCIES) errors.push({ field: "rates", message: `more than ${MAX_FX_CURRENCIES} currencies` });
  const seen = new Set<string>();
  for (const [code, rate] of table.rates.slice(0, MAX_FX_CURRENCIES + 1)) {
    const field = `rates.${code.slice(0, 12)}`;
    const problem = code === FX_BASE ? "is the base (1 EUR = 1 EUR) and is not listed" : fareCurrencyProblem(code);
    if (problem) errors.push({ field, message: problem });
    else if (seen.has(code)) errors.push({ field, message: "is listed twice" });
    seen.add(code);
    const value = Number(rate);
    if (!/^\d{1,12}(\.\d{1,10})?$/.test(rate) || !(value > 0)) errors.push({ field, message: `rate "${rate.slice(0, 30)}" is not a positive decimal number` });
  }
  return errors;
}

/** The rates a table may hold unforced, units per 1 EUR (docs/fx.md#the-fx-table): the ECB's span it by far (KWD 0.33, IDR 17,000). */
export const FX_RATE_RANGE = { min: 0.0001, max: 1_000_000 } as const;

/**
 * What makes a valid table doubtful, each naming its place (docs/fx.md#the-fx-table): a day before the table in use's
 * (it would turn every conversion back in time), a rate outside FX_RATE_RANGE (a misplaced decimal point, a unit
 * mistaken for another). An operator may import such a table all the same, on purpose.
 */
export function fxTableDoubts(table: { date: string; rates: ReadonlyArray<[string, string]> }, inUse: FxTable): FieldError[] {
  const doubts: FieldError[] = [];
  if (table.date < inUse.date) doubts.push({ field: "date", message: `${table.date} is older than the table in use (${inUse.date})` });
  for (const [code, rate] of table.rates) {
    const value = Number(rate);
    if (value < FX_RATE_RANGE.min || value > FX_RATE_RANGE.max)
      doubts.push({ field: `rates.${code}`, message: `${rate} ${code} per EUR is outside ${FX_RATE_RANGE.min}–${FX_RATE_RANGE.max} per EUR` });
  }
  return doubts;
}

/** The table of checked rows (fxTableProblems found none). */
export function fxTableOf(table: { date: string; rates: ReadonlyArray<[string, string]> }): FxTable {
  const rates: Record<string, number> = {};
  for (const [code, rate] of [...table.rates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) rates[code] = Number(rate);
  return { date: table.date, rates };
}

/** Units of `to` per 1 unit of `from` through EUR; undefined when either has no rate. */
export function crossRate(table: FxTable, from: string, to: string): number | undefined {
  if (from === to) return 1;
  const perEurFrom = from === FX_BASE ? 1 : table.rates[from];
  const perEurTo = to === FX_BASE ? 1 : table.rates[to];
  if (perEurFrom === undefined || perEurTo === undefined) return undefined;
  return perEurTo / perEurFrom;
}

/** Whether the table's day lies more than FX_STALE_AFTER_DAYS before `now` (Unix seconds). */
export function isStale(table: FxTable, now: number): boolean {
  return now - Date.parse(`${table.date}T00:00:00Z`) / 1000 > FX_STALE_AFTER_DAYS * 86_400;
}

/** The UTC day of `now` (Unix seconds), YYYY-MM-DD. */
export function dayOf(now: number): string {
  return new Date(now * 1000).toISOString().slice(0, 10);
}

/**
 * The stamp an import is stored with: its time, or one past the last stamp when that is not earlier (two imports in
 * one second). Instances compare stamps to see a new table, so every import must move it.
 */
export function importStamp(at: number, last: number | null): number {
  return Math.max(at, (last ?? 0) + 1);
}
