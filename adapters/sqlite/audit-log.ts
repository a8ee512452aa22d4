import { desc } from "drizzle-orm";
import type { AuditEvent, AuditLog } from "../../domain/ports";
import { AuditBatch, auditRow, auditWhere, type AuditRow } from "../sql/audit-batch";
import type { Db } from "./db";
import { auditEvents } from "./schema";

/**
 * The security event log. Other events are written as they come; the batched ones (`AuditBatch`: what anyone can
 * cause by sending bad credentials) are written in one transaction when held 200 ms — a burst of 401s is one
 * commit. `flush()` writes them at once (shutdown, tests).
 */
export class SqliteAuditLog implements AuditLog {
  private readonly batch = new AuditBatch(() => this.flush());

  constructor(private readonly db: Db) {}

  record(event: AuditEvent, at: number): void {
    if (!this.batch.hold(event, at)) this.insert(auditRow(event, at));
  }

  /** Writes the held events now (one transaction). Never throws: a failure is reported by the next write. */
  flush(): void {
    const rows = this.batch.take();
    if (rows.length === 0) return;
    try {
      this.db.$client.transaction(() => {
        for (const row of rows) this.insert(row);
      })();
    } catch {}
  }

  private insert(row: AuditRow): void {
    this.db.insert(auditEvents).values(row).run();
  }

  /** Newest first, filtered by type, company and time (held events are written first). */
  query(filter: { type?: string; netid?: string; since?: number; limit: number }) {
    this.flush();
    return this.db.select().from(auditEvents).where(auditWhere(auditEvents, filter)).orderBy(desc(auditEvents.id)).limit(filter.limit).all();
  }
}
