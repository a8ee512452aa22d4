import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import type { AuditEvent, AuditLog } from "../../domain/ports";
import type { Db } from "./db";
import { auditEvents } from "./schema";

export class SqliteAuditLog implements AuditLog {
  constructor(private readonly db: Db) {}

  record(event: AuditEvent, at: number): void {
    this.db.insert(auditEvents).values({ at, type: event.type, netid: event.netid ?? null, uid: event.uid ?? null, address: event.address ?? null, detail: event.detail ?? null }).run();
  }

  /** Newest first, filtered by type, company and time. */
  query(filter: { type?: string; netid?: string; since?: number; limit: number }) {
    const where: SQL[] = [];
    if (filter.type) where.push(eq(auditEvents.type, filter.type));
    if (filter.netid) where.push(eq(auditEvents.netid, filter.netid));
    if (filter.since !== undefined) where.push(gte(auditEvents.at, filter.since));
    return this.db.select().from(auditEvents).where(and(...where)).orderBy(desc(auditEvents.id)).limit(filter.limit).all();
  }
}
