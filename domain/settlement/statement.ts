import { fareMinorUnit, DEFAULT_MINOR_UNIT } from "../currency";
import { writeUnits } from "../money";
import type { FieldError } from "../errors";

/**
 * A statement between two companies for a month (docs/settlement.md#statements-and-settlement): every line either
 * owes the other, both directions, and the totals per currency. Pure: storage hands it the settled rows of the pair.
 */

/** What a line settles: a CLOSE'd booking's fare, a late cancel's fee, a provider's give-back recovery. */
export type StatementKind = "FARE" | "CANCELLATION_FEE" | "COST_RECOVERY";
/** Where a statement stands (docs/settlement.md#states-and-disputes). */
export type StatementState = "DRAFT" | "ISSUED" | "FINAL" | "DISPUTED";

/** A booking's amount owed between its two parties, as storage keeps it: whole minor units of `currency`. */
export interface SettledRow {
  transactionId: string;
  requesterId: string;
  requesterResNo: string;
  providerId: string;
  /** Unix seconds. */
  pickupDate: number;
  status: string;
  kind: StatementKind;
  /** Whole minor units, as a decimal integer string (exact however large). */
  units: string;
  currency: string;
  /** FARE lines: when the fare can no longer change (Unix seconds); null for a fare closed before fares had a window. */
  fareFinalAt?: number | null;
}

/** One line as a party reads it. */
export interface StatementLine {
  transactionId: string;
  requesterResNo: string;
  /** The pickup, ISO 8601 UTC. */
  pickup: string;
  role: "requester" | "provider";
  kind: StatementKind;
  amount: string;
  currency: string;
  status: string;
  disputed: boolean;
  /** FARE lines: whether the fare can no longer change (docs/settlement.md#the-final-fare). */
  fareFinal?: boolean;
}

export interface StatementTotal {
  currency: string;
  youOwe: string;
  owedToYou: string;
  /** owedToYou − youOwe, signed ("-12.50" when you owe more). */
  net: string;
}

/** The currency written when a booking's amount names none (ISO 4217 "no currency"). */
export const NO_CURRENCY = "XXX";

/** A month by its UTC bounds: [start, end) in Unix seconds. */
export interface Period {
  period: string;
  start: number;
  end: number;
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `YYYY-MM` read as a UTC month; undefined when it is not one (years 2000–2999). */
export function readPeriod(text: string): Period | undefined {
  const m = PERIOD.exec(text);
  if (!m || m[1] < "2000" || m[1] > "2999") return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  return { period: text, start: Date.UTC(year, month - 1, 1) / 1000, end: Date.UTC(year, month, 1) / 1000 };
}

/** The UTC month (`YYYY-MM`) of an instant. */
export function periodOf(at: number): string {
  return new Date(at * 1000).toISOString().slice(0, 7);
}

/** The period problem of a query value, for a 400 naming the field. */
export function periodProblem(field: string, text: string | undefined): FieldError | undefined {
  if (text === undefined) return { field, message: "is required: a month as YYYY-MM (UTC), e.g. 2026-03" };
  return readPeriod(text) ? undefined : { field, message: "must be a month as YYYY-MM (UTC), e.g. 2026-03" };
}

/** Who owes whom on a row: a fare and a cancellation fee are the requester's to pay, a recovery the provider's. */
export function debtorOf(row: Pick<SettledRow, "kind" | "requesterId" | "providerId">): string {
  return row.kind === "COST_RECOVERY" ? row.providerId : row.requesterId;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The digits of a currency's minor unit (2 for a code the directory does not know). */
export const digitsOf = (currency: string) => fareMinorUnit(currency) ?? DEFAULT_MINOR_UNIT;

/** A row as `me` reads it at `now`. */
export function lineOf(row: SettledRow, me: string, disputed: boolean, now: number): StatementLine {
  return {
    transactionId: row.transactionId,
    requesterResNo: row.requesterResNo,
    pickup: new Date(row.pickupDate * 1000).toISOString().replace(".000Z", "Z"),
    role: same(row.requesterId, me) ? "requester" : "provider",
    kind: row.kind,
    amount: writeUnits(BigInt(row.units), digitsOf(row.currency)),
    currency: row.currency,
    status: row.status,
    disputed,
    ...(row.kind === "FARE" ? { fareFinal: row.fareFinalAt === null || row.fareFinalAt === undefined || row.fareFinalAt <= now } : {}),
  };
}

/** Sums owed each way per currency, in minor units. */
export class Tally {
  private readonly sums = new Map<string, { owe: bigint; owed: bigint }>();

  /** Adds `units` of `currency` that `me` owes (`owes`) or is owed. */
  add(currency: string, units: bigint, owes: boolean): void {
    let s = this.sums.get(currency);
    if (!s) this.sums.set(currency, (s = { owe: 0n, owed: 0n }));
    if (owes) s.owe += units;
    else s.owed += units;
  }

  /** The totals, by currency code. */
  totals(): StatementTotal[] {
    return [...this.sums.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([currency, s]) => {
        const digits = digitsOf(currency);
        const net = s.owed - s.owe;
        return {
          currency,
          youOwe: writeUnits(s.owe, digits),
          owedToYou: writeUnits(s.owed, digits),
          net: net < 0n ? `-${writeUnits(-net, digits)}` : writeUnits(net, digits),
        };
      });
  }
}

/**
 * The lines and totals `me` reads of the rows between it and one counterparty: each row once, earliest pickup first;
 * `disputed` the transactions with an open dispute.
 */
export function statementLines(
  rows: readonly SettledRow[],
  me: string,
  disputed: ReadonlySet<string>,
  now: number,
): { lines: StatementLine[]; totals: StatementTotal[] } {
  const tally = new Tally();
  const seen = new Set<string>();
  const lines: StatementLine[] = [];
  const ordered = [...rows].sort((a, b) => a.pickupDate - b.pickupDate || (a.transactionId < b.transactionId ? -1 : 1) || (a.kind < b.kind ? -1 : 1));
  for (const row of ordered) {
    const key = `${row.transactionId}\n${row.kind}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tally.add(row.currency, BigInt(row.units), same(debtorOf(row), me));
    lines.push(lineOf(row, me, disputed.has(row.transactionId), now));
  }
  return { lines, totals: tally.totals() };
}

/** How many working days (Monday to Friday) after the 1st a statement may be disputed before it is FINAL. */
export const WORKING_DAYS_TO_DISPUTE = 5;

/**
 * The wall-clock midnight (`YYYY-MM-DDT00:00:00`) at which a period's statement becomes FINAL: the day after the
 * 5th working day (Monday to Friday) following the 1st of the next month. Public holidays are not known, so not skipped.
 */
export function finalLocalMidnight(p: Period): string {
  const day = new Date(p.end * 1000);
  let left = WORKING_DAYS_TO_DISPUTE;
  while (left > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    const weekday = day.getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  day.setUTCDate(day.getUTCDate() + 1);
  return `${day.toISOString().slice(0, 10)}T00:00:00`;
}

/** After this many seconds past a period's end its statement is FINAL in every time zone (5 working days ≤ 9 days). */
export const SURELY_FINAL_AFTER = 11 * 86_400;

/**
 * A statement's state at `now` (docs/settlement.md#states-and-disputes): DISPUTED while a line's dispute is open;
 * else DRAFT until the period ends, ISSUED from the 1st, FINAL from `finalAt`.
 */
export function stateAt(p: Period, now: number, finalAt: number, openDisputes: number): StatementState {
  if (openDisputes > 0) return "DISPUTED";
  if (now < p.end) return "DRAFT";
  return now < finalAt ? "ISSUED" : "FINAL";
}
