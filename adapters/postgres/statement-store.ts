import type { CounterpartySum, Dispute, DisputeNotice, DisputeStore, StatementSource } from "../../domain/settlement/ports";
import type { SettledRow } from "../../domain/settlement/statement";
import { disputeSql, statementSql } from "../sql/statement-sql";
import type { PgDb } from "./db";
import { clientOf } from "./booking-insert";
import { insertLiveEvents } from "./live-event-log";
import type { PgTx } from "./booking-change";
import { outboxMessages } from "./schema";

const STATEMENT = statementSql({ p: (n) => `$${n}`, text: (expr) => `(${expr})::text` });
const DISPUTE = disputeSql({ p: (n) => `$${n}` });

/** Rows as PostgreSQL answers them: 64-bit integers arrive as strings. */
const settled = (r: SettledRow): SettledRow => ({
  ...r,
  pickupDate: Number(r.pickupDate),
  fareFinalAt: r.fareFinalAt === null || r.fareFinalAt === undefined ? null : Number(r.fareFinalAt),
});
const dispute = (r: Dispute): Dispute => ({ ...r, raisedAt: Number(r.raisedAt), answeredAt: r.answeredAt === null ? null : Number(r.answeredAt) });

/** Statements' reads of settled bookings (docs/settlement.md#statements-and-settlement) on PostgreSQL. */
export class PgStatementSource implements StatementSource {
  constructor(private readonly db: PgDb) {}

  async rowsBetween(a: string, b: string, start: number, end: number): Promise<SettledRow[]> {
    return ((await this.db.$client.unsafe(STATEMENT.between, [a, b, start, end])) as SettledRow[]).map(settled);
  }

  async anyBetween(a: string, b: string): Promise<boolean> {
    const [found] = (await this.db.$client.unsafe(STATEMENT.any, [a, b])) as Array<{ found: boolean }>;
    return Boolean(found?.found);
  }

  async sumsOf(me: string, start: number, end: number): Promise<CounterpartySum[]> {
    return ((await this.db.$client.unsafe(STATEMENT.sums, [me, start, end])) as CounterpartySum[]).map((r) => ({ ...r, lines: Number(r.lines) }));
  }

  async row(transactionId: string): Promise<SettledRow | undefined> {
    const [found] = (await this.db.$client.unsafe(STATEMENT.row, [transactionId])) as SettledRow[];
    return found && settled(found);
  }

  async parties(transactionId: string) {
    type Parties = { requesterId: string; providerId: string; pickupDate: number };
    const [found] = (await this.db.$client.unsafe(STATEMENT.parties, [transactionId])) as Parties[];
    return found && { ...found, pickupDate: Number(found.pickupDate) };
  }

  async firstVehicleAt(netid: string): Promise<{ lat: number; lon: number } | undefined> {
    const [found] = (await this.db.$client.unsafe(STATEMENT.zone, [netid])) as Array<{ lat: number; lon: number }>;
    return found && { lat: Number(found.lat), lon: Number(found.lon) };
  }
}

/** Disputes of statement lines (docs/settlement.md#states-and-disputes) on PostgreSQL. */
export class PgDisputeStore implements DisputeStore {
  constructor(private readonly db: PgDb) {}

  async raise(d: Dispute, notice: DisputeNotice): Promise<boolean> {
    const args = [d.id, d.transactionId, d.requesterId, d.providerId, d.period, d.raisedBy, d.reason, d.raisedAt];
    return this.step(`${DISPUTE.insert} RETURNING 1`, args, notice);
  }

  /**
   * A dispute's step and its notice (its webhook and live event) in one transaction, as a booking change writes its
   * own: false, nothing written, when the step's statement changed no row.
   */
  private step(sqlText: string, args: unknown[], { message, live }: DisputeNotice): Promise<boolean> {
    return this.db.transaction(async (tx: PgTx) => {
      if ((await clientOf(tx).unsafe(sqlText, args)).length !== 1) return false;
      if (message) {
        const { at } = message;
        await tx.insert(outboxMessages).values({ ...message.message, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: Math.floor(at) });
      }
      if (live.length > 0) await insertLiveEvents(clientOf(tx), live);
      return true;
    });
  }

  async get(id: string): Promise<Dispute | undefined> {
    const [found] = (await this.db.$client.unsafe(DISPUTE.get, [id])) as Dispute[];
    return found && dispute(found);
  }

  async end(id: string, state: "ACCEPTED" | "ANSWERED", answer: string | null, at: number, notice: DisputeNotice): Promise<boolean> {
    return this.step(`${DISPUTE.end} RETURNING 1`, [id, state, answer, at], notice);
  }

  async between(a: string, b: string, period: string): Promise<Dispute[]> {
    return ((await this.db.$client.unsafe(DISPUTE.between, [a, b, period])) as Dispute[]).map(dispute);
  }

  async openOf(me: string, period: string): Promise<Dispute[]> {
    return ((await this.db.$client.unsafe(DISPUTE.openOf, [me, period])) as Dispute[]).map(dispute);
  }
}
