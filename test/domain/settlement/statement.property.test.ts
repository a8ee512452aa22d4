import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { CounterpartySum, Dispute, DisputeStore, StatementSource } from "../../../domain/settlement/ports";
import { debtorOf, readPeriod, type SettledRow, type StatementTotal } from "../../../domain/settlement/statement";
import { counterpartiesOf, statementOf, type StatementDeps } from "../../../domain/usecases/statements";

// Statements over random bookings between random pairs (docs/settlement.md#statements-and-settlement): each pair's two
// statements mirror each other exactly, every settled booking is a line of exactly one statement once, and the month's
// list gives each counterparty the totals its statement gives.

const COMPANIES = ["ACME", "BOOKWELL", "HUDSON", "NARITA", "ZEPHYR"];
const MARCH = readPeriod("2026-03")!;
const CURRENCIES = ["USD", "JPY", "BHD", "EUR"];

const row = fc.record({
  requesterId: fc.constantFrom(...COMPANIES),
  providerId: fc.constantFrom(...COMPANIES),
  // Some pickups fall outside March: they are on no March statement.
  pickupDate: fc.integer({ min: MARCH.start - 3 * 86_400, max: MARCH.end + 3 * 86_400 - 1 }),
  kind: fc.constantFrom("FARE" as const, "CANCELLATION_FEE" as const, "COST_RECOVERY" as const),
  // Up to 15 digits of minor units: sums past 2^53 must stay exact.
  units: fc.bigInt({ min: 0n, max: 999_999_999_999_999n }).map(String),
  currency: fc.constantFrom(...CURRENCIES),
});

/** An in-memory store answering as the SQL does: settled rows between a pair, or summed per counterparty. */
function memory(rows: SettledRow[]): StatementDeps {
  const inMonth = (r: SettledRow, start: number, end: number) => r.pickupDate >= start && r.pickupDate < end;
  const stored = rows.filter((r) => r.kind !== "COST_RECOVERY");
  const recoveries = rows.filter((r) => r.kind === "COST_RECOVERY");
  const pair = (r: SettledRow, a: string, b: string) => (r.requesterId === a && r.providerId === b) || (r.requesterId === b && r.providerId === a);
  const source: StatementSource = {
    rowsBetween: async (a, b, start, end) => stored.filter((r) => pair(r, a, b) && inMonth(r, start, end)),
    anyBetween: async (a, b) => rows.some((r) => pair(r, a, b)),
    sumsOf: async (me, start, end) => {
      const sums = new Map<string, CounterpartySum>();
      for (const r of stored.filter((x) => inMonth(x, start, end) && (x.requesterId === me || x.providerId === me))) {
        const role = r.requesterId === me ? "requester" : "provider";
        const counterparty = role === "requester" ? r.providerId : r.requesterId;
        const key = `${counterparty}/${role}/${r.currency}`;
        const s = sums.get(key) ?? { counterparty, role, currency: r.currency, units: "0", lines: 0 };
        sums.set(key, { ...s, units: String(BigInt(s.units) + BigInt(r.units)), lines: s.lines + 1 });
      }
      return [...sums.values()];
    },
    row: async () => undefined,
    parties: async () => undefined,
    firstVehicleAt: async () => undefined,
  };
  const disputes: DisputeStore = {
    raise: async () => false,
    get: async () => undefined,
    end: async () => false,
    between: async () => [] as Dispute[],
    openOf: async () => [] as Dispute[],
  };
  return {
    source,
    disputes,
    recoveries: async (me, start, end, them) =>
      recoveries.filter((r) => inMonth(r, start, end) && (them === undefined ? r.requesterId === me || r.providerId === me : pair(r, me, them))),
    companies: { findByNetid: async (netid) => ({ netid }) as never },
    zones: { zoneAt: () => undefined, localToUnix: (local) => Date.parse(`${local}Z`) / 1000 },
    clock: { now: () => MARCH.start + 86_400 },
  };
}

const units = (amount: string) => BigInt(amount.replace(".", "").replace("-", "")) * (amount.startsWith("-") ? -1n : 1n);
const negated = (t: StatementTotal): StatementTotal => ({
  currency: t.currency,
  youOwe: t.owedToYou,
  owedToYou: t.youOwe,
  net: t.net.startsWith("-") ? t.net.slice(1) : /[1-9]/.test(t.net) ? `-${t.net}` : t.net,
});

describe("statements over random bookings", () => {
  test("each pair's two statements mirror each other, and every settled booking of the month is counted once", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 60 }), async (drawn) => {
        // Self-bookings are on no statement (storage derives no amount for them).
        const rows: SettledRow[] = drawn
          .filter((r) => r.requesterId !== r.providerId)
          .map((r, i) => ({ ...r, transactionId: `t${String(i).padStart(3, "0")}`, requesterResNo: `R${i}`, status: r.kind === "FARE" ? "CLOSE" : "CANCEL" }));
        const deps = memory(rows);
        const counted = new Map<string, number>();
        for (const [i, a] of COMPANIES.entries()) {
          for (const b of COMPANIES.slice(i + 1)) {
            if (!rows.some((r) => (r.requesterId === a && r.providerId === b) || (r.requesterId === b && r.providerId === a))) continue;
            const mine = await statementOf(deps, a, { counterparty: b, period: "2026-03" });
            const theirs = await statementOf(deps, b, { counterparty: a, period: "2026-03" });
            expect(theirs.lines.map((l) => [l.transactionId, l.kind, l.amount, l.currency])).toEqual(
              mine.lines.map((l) => [l.transactionId, l.kind, l.amount, l.currency]),
            );
            expect(theirs.lines.map((l) => (l.role === "requester" ? "provider" : "requester"))).toEqual(mine.lines.map((l) => l.role));
            expect(theirs.totals).toEqual(mine.totals.map(negated));
            for (const l of mine.lines) counted.set(l.transactionId, (counted.get(l.transactionId) ?? 0) + 1);
            // The totals are the lines' sums, each way.
            for (const t of mine.totals) {
              const of = mine.lines.filter((l) => l.currency === t.currency);
              const owe = of.filter((l) => debtorOf({ kind: l.kind, requesterId: l.role === "requester" ? a : b, providerId: l.role === "requester" ? b : a }) === a);
              expect(units(t.youOwe)).toBe(owe.reduce((s, l) => s + units(l.amount), 0n));
              expect(units(t.net)).toBe(units(t.owedToYou) - units(t.youOwe));
            }
            // The month's list gives the counterparty the statement's totals.
            const listed = (await counterpartiesOf(deps, a, { period: "2026-03" })).find((c) => c.counterparty === b);
            expect(listed?.totals ?? []).toEqual(mine.totals);
            expect(listed?.lines ?? 0).toBe(mine.lines.length);
          }
        }
        const march = rows.filter((r) => r.pickupDate >= MARCH.start && r.pickupDate < MARCH.end);
        expect([...counted.keys()].sort()).toEqual(march.map((r) => r.transactionId).sort());
        expect([...counted.values()].every((n) => n === 1)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
