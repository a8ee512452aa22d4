import { NotFoundError, ValidationError, type FieldError } from "../errors";
import type { Clock, CompanyRepository } from "../ports";
import type { TimeZones } from "../trips/places";
import type { CostRecoveries, Dispute, DisputeStore, StatementSource } from "../settlement/ports";
import {
  Tally, finalLocalMidnight, periodProblem, readPeriod, stateAt, statementLines, SURELY_FINAL_AFTER, type Period,
  type StatementLine, type StatementState, type StatementTotal,
} from "../settlement/statement";

/**
 * Statements (docs/settlement.md#statements-and-settlement): what a company and one counterparty owe each other for a
 * month of pickups, line by line and per currency, and the month's list of counterparties with their totals.
 */

export interface StatementDeps {
  source: StatementSource;
  disputes: DisputeStore;
  /** The one seam through which cost recoveries reach statements. */
  recoveries: CostRecoveries;
  companies: Pick<CompanyRepository, "findByNetid">;
  zones: Pick<TimeZones, "zoneAt" | "localToUnix">;
  clock: Clock;
}

/** A dispute as either party reads it. */
export type DisputeView = Omit<Dispute, "requesterId" | "providerId" | "period">;

export interface Statement {
  period: string;
  counterparty: string;
  state: StatementState;
  /** Unix seconds: the period's end (the 1st), and when it is FINAL unless disputed. */
  issuedAt: number;
  finalAt: number;
  lines: StatementLine[];
  totals: StatementTotal[];
  disputes: DisputeView[];
}

export interface CounterpartyTotals {
  counterparty: string;
  state: StatementState;
  lines: number;
  totals: StatementTotal[];
}

const COUNTERPARTY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const notYours = () =>
  new NotFoundError("No statement with this counterparty: you have no settled booking with it", "STATEMENT_NOT_FOUND");

/** The month asked, or a 400 naming each bad query value. */
export function readStatementQuery(query: { period?: string; counterparty?: string }, needsCounterparty: boolean): Period {
  const errors: FieldError[] = [];
  const bad = periodProblem("period", query.period);
  if (bad) errors.push(bad);
  if (needsCounterparty && !COUNTERPARTY.test(query.counterparty ?? ""))
    errors.push({ field: "counterparty", message: "must be a company's netid (1–64 of A-Z a-z 0-9 _ -)" });
  if (errors.length > 0) throw new ValidationError(errors);
  return readPeriod(query.period!)!;
}

/**
 * When a period's statement between `a` and `b` is FINAL unless disputed (docs/settlement.md#states-and-disputes):
 * 5 working days after the 1st, counted in each party's own time zone (where its first vehicle stands, else UTC);
 * the later of the two.
 */
export async function finalAtFor(deps: Pick<StatementDeps, "source" | "zones">, p: Period, a: string, b: string): Promise<number> {
  const local = finalLocalMidnight(p);
  let latest = 0;
  for (const netid of a === b ? [a] : [a, b]) {
    const at = await deps.source.firstVehicleAt(netid);
    const zone = (at && deps.zones.zoneAt(at.lat, at.lon)) ?? "UTC";
    latest = Math.max(latest, deps.zones.localToUnix(local, zone) ?? deps.zones.localToUnix(local, "UTC")!);
  }
  return latest;
}

/** A period's state for a pair, reading their zones only when the answer depends on them. */
export async function pairState(
  deps: Pick<StatementDeps, "source" | "zones" | "clock">,
  p: Period,
  me: string,
  them: string,
  open: number,
): Promise<StatementState> {
  const now = deps.clock.now();
  if (open > 0 || now < p.end) return stateAt(p, now, Infinity, open);
  if (now >= p.end + SURELY_FINAL_AFTER) return "FINAL";
  return stateAt(p, now, await finalAtFor(deps, p, me, them), 0);
}

/** The counterparty as stored, or 404 when the caller has no settled booking with it (any month). */
async function counterpartyOf(deps: StatementDeps, me: string, netid: string): Promise<string> {
  const company = await deps.companies.findByNetid(netid);
  if (!company || company.netid.toLowerCase() === me.toLowerCase()) throw notYours();
  return company.netid;
}

/**
 * GET /api/statements?counterparty=…&period=…: the lines between the caller and the counterparty with a pickup in the
 * month, both directions, the totals per currency and the disputes. A counterparty the caller has no settled booking
 * with in any month (an unknown netid alike) is 404 STATEMENT_NOT_FOUND; a month without lines is an empty statement.
 */
export async function statementOf(deps: StatementDeps, me: string, query: { period?: string; counterparty?: string }): Promise<Statement> {
  const p = readStatementQuery(query, true);
  const them = await counterpartyOf(deps, me, query.counterparty!);
  const [rows, recovered, disputes] = await Promise.all([
    deps.source.rowsBetween(me, them, p.start, p.end),
    deps.recoveries(me, p.start, p.end, them),
    deps.disputes.between(me, them, p.period),
  ]);
  if (rows.length === 0 && recovered.length === 0 && disputes.length === 0 && !(await deps.source.anyBetween(me, them))) throw notYours();
  const open = disputes.filter((d) => d.state === "OPEN");
  const { lines, totals } = statementLines([...rows, ...recovered], me, new Set(open.map((d) => d.transactionId)), deps.clock.now());
  const finalAt = await finalAtFor(deps, p, me, them);
  return {
    period: p.period,
    counterparty: them,
    state: stateAt(p, deps.clock.now(), finalAt, open.length),
    issuedAt: p.end,
    finalAt,
    lines,
    totals,
    disputes: disputes.map(({ requesterId: _r, providerId: _p, period: _m, ...view }) => view),
  };
}

/** GET /api/statements?period=…: every counterparty the caller has lines with in the month, with its totals. */
export async function counterpartiesOf(deps: StatementDeps, me: string, query: { period?: string }): Promise<CounterpartyTotals[]> {
  const p = readStatementQuery(query, false);
  const [sums, recovered, open] = await Promise.all([
    deps.source.sumsOf(me, p.start, p.end),
    deps.recoveries(me, p.start, p.end),
    deps.disputes.openOf(me, p.period),
  ]);
  const byParty = new Map<string, { netid: string; tally: Tally; lines: number }>();
  const entry = (netid: string) => {
    const key = netid.toLowerCase();
    let e = byParty.get(key);
    if (!e) byParty.set(key, (e = { netid, tally: new Tally(), lines: 0 }));
    return e;
  };
  // A fare and a cancellation fee are the requester's to pay: the caller owes them on its requester side.
  for (const s of sums) {
    const e = entry(s.counterparty);
    e.tally.add(s.currency, BigInt(s.units), s.role === "requester");
    e.lines += s.lines;
  }
  for (const r of recovered) {
    const mine = r.providerId.toLowerCase() === me.toLowerCase();
    const e = entry(mine ? r.requesterId : r.providerId);
    e.tally.add(r.currency, BigInt(r.units), mine);
    e.lines += 1;
  }
  const openWith = new Map<string, number>();
  for (const d of open) {
    const other = (d.requesterId.toLowerCase() === me.toLowerCase() ? d.providerId : d.requesterId).toLowerCase();
    openWith.set(other, (openWith.get(other) ?? 0) + 1);
  }
  const out: CounterpartyTotals[] = [];
  for (const [key, e] of [...byParty.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const state = await pairState(deps, p, me, e.netid, openWith.get(key) ?? 0);
    out.push({ counterparty: e.netid, state, lines: e.lines, totals: e.tally.totals() });
  }
  return out;
}
