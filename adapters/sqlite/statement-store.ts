import type { CounterpartySum, Dispute, DisputeNotice, DisputeStore, StatementSource } from "../../domain/settlement/ports";
import type { SettledRow } from "../../domain/settlement/statement";
import { disputeSql, statementSql } from "../sql/statement-sql";
import type { Db } from "./db";
import { SqliteLiveEventLog } from "./live-event-log";
import { SqliteOutbox } from "./outbox";

const STATEMENT = statementSql({ p: (n) => `?${n}`, text: (expr) => `CAST(${expr} AS TEXT)` });
const DISPUTE = disputeSql({ p: (n) => `?${n}` });

/** Statements' reads of settled bookings (docs/settlement.md#statements-and-settlement) on SQLite. */
export class SqliteStatementSource implements StatementSource {
  constructor(private readonly db: Db) {}

  async rowsBetween(a: string, b: string, start: number, end: number): Promise<SettledRow[]> {
    return this.db.$client.query<SettledRow, [string, string, number, number]>(STATEMENT.between).all(a, b, start, end);
  }

  async anyBetween(a: string, b: string): Promise<boolean> {
    return Boolean(this.db.$client.query<{ found: number }, [string, string]>(STATEMENT.any).get(a, b)?.found);
  }

  async sumsOf(me: string, start: number, end: number): Promise<CounterpartySum[]> {
    return this.db.$client.query<CounterpartySum, [string, number, number]>(STATEMENT.sums).all(me, start, end);
  }

  async row(transactionId: string): Promise<SettledRow | undefined> {
    return this.db.$client.query<SettledRow, [string]>(STATEMENT.row).get(transactionId) ?? undefined;
  }

  async parties(transactionId: string) {
    return this.db.$client.query<{ requesterId: string; providerId: string; pickupDate: number }, [string]>(STATEMENT.parties).get(transactionId) ?? undefined;
  }

  async firstVehicleAt(netid: string): Promise<{ lat: number; lon: number } | undefined> {
    return this.db.$client.query<{ lat: number; lon: number }, [string]>(STATEMENT.zone).get(netid) ?? undefined;
  }
}

/** Disputes of statement lines (docs/settlement.md#states-and-disputes) on SQLite. */
export class SqliteDisputeStore implements DisputeStore {
  constructor(private readonly db: Db) {}

  async raise(d: Dispute, notice: DisputeNotice): Promise<boolean> {
    const args = [d.id, d.transactionId, d.requesterId, d.providerId, d.period, d.raisedBy, d.reason, d.raisedAt] as const;
    return this.db.$client.transaction(() => this.db.$client.query(DISPUTE.insert).run(...args).changes === 1 && this.tell(notice))();
  }

  /** Writes a step's notice (its webhook and live event) inside the step's transaction, as a booking change writes its own. */
  private tell({ message, live }: DisputeNotice): true {
    const sqlite = this.db.$client;
    if (message) sqlite.query(SqliteOutbox.INSERT_SQL).run(...SqliteOutbox.insertArgs(message.message, message.at));
    for (const args of SqliteLiveEventLog.bodyArgs(live)) sqlite.query(SqliteLiveEventLog.BODY_SQL).run(...args);
    for (const row of live) sqlite.query(SqliteLiveEventLog.INSERT_SQL).run(...SqliteLiveEventLog.insertArgs(row));
    return true;
  }

  async get(id: string): Promise<Dispute | undefined> {
    return this.db.$client.query<Dispute, [string]>(DISPUTE.get).get(id) ?? undefined;
  }

  async end(id: string, state: "ACCEPTED" | "ANSWERED", answer: string | null, at: number, notice: DisputeNotice): Promise<boolean> {
    return this.db.$client.transaction(() => this.db.$client.query(DISPUTE.end).run(id, state, answer, at).changes === 1 && this.tell(notice))();
  }

  async between(a: string, b: string, period: string): Promise<Dispute[]> {
    return this.db.$client.query<Dispute, [string, string, string]>(DISPUTE.between).all(a, b, period);
  }

  async openOf(me: string, period: string): Promise<Dispute[]> {
    return this.db.$client.query<Dispute, [string, string]>(DISPUTE.openOf).all(me, period);
  }
}
