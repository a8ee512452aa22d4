import { desc } from "drizzle-orm";
import type { AuditEvent, AuditLog } from "../../domain/ports";
import { AuditBatch, auditRow, auditWhere, type AuditRow } from "../sql/audit-batch";
import type { PgDb } from "./db";
import { auditEvents } from "./schema";

/**
 * The security event log on PostgreSQL. `record` never waits on the database: other events are written in the
 * next turn of the event loop (those of one turn in one statement, in order); the batched ones (`AuditBatch`, as
 * the SQLite log holds them) in one statement when held 200 ms. `flush()` writes everything held at once
 * (shutdown, tests); `query` flushes first.
 */
export class PgAuditLog implements AuditLog {
  private readonly batch = new AuditBatch(() => void this.flush());
  /** Events written as they come, in order; a write of them is scheduled when the first arrives. */
  private direct: AuditRow[] = [];
  private directWrite: Promise<void> | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  record(event: AuditEvent, at: number): void {
    if (this.batch.hold(event, at)) return;
    this.direct.push(auditRow(event, at));
    this.directWrite ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.writeDirect());
  }

  /** Writes every held event now. Never rejects: a failed write goes to `onError` and its events are lost. */
  async flush(): Promise<void> {
    await Promise.all([this.writeDirect(), this.insert(this.batch.take())]);
  }

  /** Newest first, filtered by type, company and time (held events are written first). */
  async query(filter: { type?: string; netid?: string; since?: number; limit: number }) {
    await this.flush();
    return this.db.select().from(auditEvents).where(auditWhere(auditEvents, filter)).orderBy(desc(auditEvents.id)).limit(filter.limit);
  }

  private writeDirect(): Promise<void> {
    const rows = this.direct;
    this.direct = [];
    this.directWrite = undefined;
    return this.insert(rows);
  }

  private async insert(rows: AuditRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.db.insert(auditEvents).values(rows);
    } catch (error) {
      this.onError(error);
    }
  }
}
