import type { FieldError } from "../errors";
import { amountParts } from "../money";
import type { Booking, Fee } from "./booking";
import { currencyOfFees } from "./booking-amounts";
import { canonicalJson } from "../shared/canonical-json";

/**
 * The price is the sum of its lines (docs/terms.md#the-price-is-the-sum-of-its-lines), pure: a booking's
 * `totalAmount` is the sum of its fee lines; the lines a quote priced are fixed once booked; the provider adds lines
 * of GNet's types CHARGE, EXPENSE and EXTRA_SERVICE (tolls, parking, waiting) after them. Amounts are summed as
 * whole minor units (bigint), never as floats.
 */

/** GNet's fee-line types a provider adds after the quote: tolls, parking, waiting and the like. */
export const ADDED_LINE_TYPES: readonly string[] = ["CHARGE", "EXPENSE", "EXTRA_SERVICE"];
const CANCELLATION = "CANCELLATION";

const typeOf = (f: Fee) => (typeof f.type === "string" ? f.type.trim().toUpperCase() : "");
/** Whether a line is one a provider added after the quote (its type is CHARGE, EXPENSE or EXTRA_SERVICE). */
export const isAddedLine = (f: Fee) => ADDED_LINE_TYPES.includes(typeOf(f));
const isCancellationLine = (f: Fee) => typeOf(f) === CANCELLATION;
/** A line's amount (its `fee`), when it carries one. */
const amountOf = (f: Fee) => (typeof f.fee === "string" && f.fee.trim() !== "" ? f.fee.trim() : undefined);

/** A decimal amount as whole units of 10^-digits. */
function unitsOf(amount: string, digits: number): bigint | undefined {
  const parts = amountParts(amount);
  if (!parts || parts.decimals.length > digits) return undefined;
  return BigInt(parts.whole + parts.decimals.padEnd(digits, "0"));
}

const decimalsOf = (amount: string) => amountParts(amount)?.decimals.length ?? 0;
const writtenDigits = (amount: string) => amount.trim().split(".")[1]?.length ?? 0;

/**
 * The exact sum of decimal amounts, written with as many decimals as the most precise of them ("110.00" + "7.5"
 * → "117.50"; JPY "30000" + "1200" → "31200"); undefined for no amounts or one that is not a decimal amount.
 */
export function sumAmounts(amounts: readonly string[]): string | undefined {
  if (amounts.length === 0) return undefined;
  const digits = Math.max(...amounts.map((a) => Math.max(decimalsOf(a), writtenDigits(a))));
  let total = 0n;
  for (const a of amounts) {
    const units = unitsOf(a, digits);
    if (units === undefined) return undefined;
    total += units;
  }
  if (digits === 0) return total.toString();
  const s = total.toString().padStart(digits + 1, "0");
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** Whether two decimal amounts are the same number ("240.5" and "240.50"). */
export function sameAmount(a: string, b: string): boolean {
  const digits = Math.max(decimalsOf(a), decimalsOf(b));
  const [x, y] = [unitsOf(a, digits), unitsOf(b, digits)];
  return x !== undefined && x === y;
}

/** The sum of the lines that carry an amount; undefined when none does. */
export function sumOfLines(fees: readonly Fee[]): string | undefined {
  return sumAmounts(fees.map(amountOf).filter((a): a is string => a !== undefined));
}

/**
 * How many of the booking's lines (the first ones) a quote priced: none when it was not made from a quote. A booking
 * booked before the count was kept: its lines up to the first added or cancellation line.
 */
export function quotedLineCount(b: Pick<Booking, "quoted" | "trip">): number {
  if (!b.quoted) return 0;
  if (typeof b.quoted.lines === "number") return b.quoted.lines;
  const first = b.trip.fees.findIndex((f) => isAddedLine(f) || isCancellationLine(f));
  return first === -1 ? b.trip.fees.length : first;
}

/** The lines a provider added after the quote (every line after the quoted ones). */
export function linesAfterQuote(b: Pick<Booking, "quoted" | "trip">): Fee[] {
  return b.trip.fees.slice(quotedLineCount(b));
}

/**
 * The fare a cancellation percent applies to (docs/terms.md#the-cancellation-fee): the quoted lines of a booking made
 * from a quote; else the lines that are neither added (tolls, parking, waiting) nor a cancellation fee; else, with no
 * priced line, the booking's total. Null when the booking has no price.
 */
export function cancellableFare(b: Pick<Booking, "quoted" | "trip" | "totalAmount">): string | null {
  const fare = b.quoted ? b.trip.fees.slice(0, quotedLineCount(b)) : b.trip.fees.filter((f) => !isAddedLine(f) && !isCancellationLine(f));
  return sumOfLines(fare) ?? b.totalAmount;
}

/** A line as a changeLogs line names it: "CHARGE TOLL (Tolls) 1200 JPY". */
export function describeLine(f: Fee, currency: string | undefined): string {
  const amount = amountOf(f) ?? "(no amount)";
  const label = [typeOf(f), f.code].filter((x) => typeof x === "string" && x !== "").join(" ");
  const name = typeof f.name === "string" && f.name.trim() !== "" ? ` (${f.name.trim().slice(0, 60)})` : "";
  const cur = (typeof f.currency === "string" && f.currency.trim() !== "" ? f.currency.trim().toUpperCase() : currency) ?? "";
  return `${label || "line"}${name} ${amount}${cur ? ` ${cur}` : ""}`;
}

/** A provider's write of the price: its fee lines and total as checked, in the booking's currency's minor unit. */
export interface FareWrite {
  totalAmount?: string;
  fees?: Fee[];
}

/** What a provider's price write changes: the lines and total to keep (absent: unchanged) and the changeLogs words. */
export interface FareChange {
  fees?: Fee[];
  totalAmount?: string;
  described: string[];
}

const sameText = (a: unknown, b: unknown) => String(a ?? "").trim().toUpperCase() === String(b ?? "").trim().toUpperCase();

/** Where a sent line differs from the quoted line it must repeat: the member named, or undefined when it is the same. */
function quotedLineProblem(sent: Fee, quoted: Fee, i: number, label: string): FieldError | undefined {
  const fixed = "quoted lines are fixed: send them as booked, in order, and add lines after them";
  for (const member of ["code", "type"] as const)
    if (sent[member] !== undefined && quoted[member] !== undefined && !sameText(sent[member], quoted[member]))
      return { field: `fees[${i}].${member}`, message: `must be ${String(quoted[member])}, the quoted line ${label}: ${fixed}` };
  const sentAmount = amountOf(sent);
  const quotedAmount = amountOf(quoted);
  if (quotedAmount !== undefined && (sentAmount === undefined || !sameAmount(sentAmount, quotedAmount)))
    return { field: `fees[${i}].fee`, message: `must be ${quotedAmount}, the quoted line ${label}: ${fixed}` };
  if (sent.currency !== undefined && quoted.currency !== undefined && !sameText(sent.currency, quoted.currency))
    return { field: `fees[${i}].currency`, message: `must be ${String(quoted.currency)}, the quoted line ${label}: ${fixed}` };
  return undefined;
}

const addedTypes = () => ADDED_LINE_TYPES.join(", ");

/**
 * A provider's price write checked against the booking (docs/terms.md#the-price-is-the-sum-of-its-lines). `fees` is
 * the whole list: on a booking made from a quote, its quoted lines first, unchanged (the booking keeps them as
 * booked), then the lines the provider adds, of GNet's types CHARGE, EXPENSE or EXTRA_SERVICE, each with an amount
 * in the booking's currency; on another booking the provider's lines replace the ones it had. `totalAmount`, when
 * sent, must be the sum of the resulting lines; when left out it becomes that sum. A total alone is taken only by a
 * booking with no priced line (a trip sent without a price). Every failing field is returned; nothing is changed then.
 */
export function providerFare(b: Pick<Booking, "quoted" | "trip" | "totalAmount">, written: FareWrite): FareChange & { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const described: string[] = [];
  if (written.fees === undefined && written.totalAmount === undefined) return { described, errors };
  const currency = currencyOfFees(b.trip.fees);
  const n = quotedLineCount(b);
  let fees: Fee[] | undefined;
  if (written.fees !== undefined) {
    const sent = written.fees;
    if (b.quoted) {
      const quoted = b.trip.fees.slice(0, n);
      if (sent.length < n)
        errors.push({
          field: "fees",
          message:
            `must list the booking's ${n} quoted line(s) first, unchanged (${quoted.map((f) => describeLine(f, currency)).join("; ")}), ` +
            `then any lines you add (${addedTypes()})`,
        });
      sent.slice(0, n).forEach((line, i) => {
        const problem = quotedLineProblem(line, quoted[i], i, describeLine(quoted[i], currency));
        if (problem) errors.push(problem);
      });
      sent.slice(n).forEach((line, k) => {
        const i = n + k;
        if (!isAddedLine(line))
          errors.push({ field: `fees[${i}].type`, message: `must be ${addedTypes()}: a line added after the quote (tolls, parking, waiting)` });
        if (amountOf(line) === undefined) errors.push({ field: `fees[${i}].fee`, message: "is required: the amount the line adds" });
        if (line.currency !== undefined && currency !== undefined && !sameText(line.currency, currency))
          errors.push({ field: `fees[${i}].currency`, message: `must be ${currency}, the booking's currency` });
      });
      fees = [...quoted, ...sent.slice(n)];
      described.push(...describeAddedLines(b.trip.fees.slice(n), sent.slice(n), currency));
    } else {
      // One currency across the lines, or they cannot be summed.
      const named = currencyOfFees(sent);
      sent.forEach((line, i) => {
        if (line.currency !== undefined && named !== undefined && !sameText(line.currency, named))
          errors.push({ field: `fees[${i}].currency`, message: `must be ${named}, as the other lines: a total sums one currency` });
      });
      fees = sent;
      if (canonicalJson(sent) !== canonicalJson(b.trip.fees)) described.push(`fees changed (${b.trip.fees.length} → ${sent.length} line(s))`);
    }
  }
  const lines = fees ?? b.trip.fees;
  const sum = sumOfLines(lines);
  let totalAmount = sum;
  if (written.totalAmount !== undefined) {
    if (sum !== undefined && !sameAmount(written.totalAmount, sum)) {
      const shownCurrency = currencyOfFees(lines) ?? currency;
      errors.push({
        field: "totalAmount",
        message:
          `must be the sum of the booking's fee lines, ${sum}${shownCurrency ? ` ${shownCurrency}` : ""}: a total changes only ` +
          `with the lines (add a ${addedTypes()} line)`,
      });
    } else totalAmount = sum ?? written.totalAmount;
  }
  if (errors.length > 0) return { described: [], errors };
  const change: FareChange = { described, ...(fees !== undefined ? { fees } : {}) };
  if (totalAmount !== undefined && (b.totalAmount === null || !sameAmount(totalAmount, b.totalAmount))) {
    change.totalAmount = totalAmount;
    described.push(`totalAmount ${b.totalAmount ?? "(none)"} → ${totalAmount}`);
  }
  return { ...change, errors };
}

/** One changeLogs line per added line that appeared, changed or went ("fee line added: CHARGE TOLL (Tolls) 1200 JPY"). */
function describeAddedLines(before: readonly Fee[], after: readonly Fee[], currency: string | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    const [was, now] = [before[i], after[i]];
    if (was === undefined) out.push(`fee line added: ${describeLine(now, currency)}`);
    else if (now === undefined) out.push(`fee line removed: ${describeLine(was, currency)}`);
    else if (canonicalJson(was) !== canonicalJson(now)) out.push(`fee line changed: ${describeLine(was, currency)} → ${describeLine(now, currency)}`);
  }
  return out;
}
