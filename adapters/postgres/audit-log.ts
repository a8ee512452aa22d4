import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import type { AuditEvent, AuditLog } from "../../domain/ports";
import type { PgDb } from "./db";
import { auditEvents } from "./schema";

/** Events an attacker can cause at will: written in batches, repeats merged, so a flood costs no write each. */
const BATCHED = new Set(["access.denied", "login.failed", "login.throttled"]);
const FLUSH_MS = 200;
/** Distinct events held per batch; more are counted in one "audit.dropped" row. */
const MAX_PENDING = 1000;

type AuditRow = typeof auditEvents.$inferInsert;

const rowOf = (event: AuditEvent, at: number): AuditRow => ({
  at,
  type: event.type,
  netid: event.netid ?? null,
  uid: event.uid ?? null,
  address: event.address ?? null,
  detail: event.detail ?? null,
});

/**
 * The security event log on PostgreSQL. `record` never waits on the database: other events are written in the
 * next turn of the event loop (those of one turn in one statement, in order); events anyone can cause by sending
 * bad credentials are held for up to 200 ms, identical ones as one row with a count, and more than 1000 distinct
 * ones in a window are counted in one "audit.dropped" row — as the SQLite log does. `flush()` writes everything
 * held at once (shutdown, tests); `query` flushes first.
 */
export class PgAuditLog implements AuditLog {
  private readonly pending = new Map<string, { event: AuditEvent; at: number; count: number }>();
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Events written as they come, in order; a write of them is scheduled when the first arrives. */
  private direct: AuditRow[] = [];
  private directWrite: Promise<void> | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  record(event: AuditEvent, at: number): void {
    if (!BATCHED.has(event.type)) {
      this.direct.push(rowOf(event, at));
      this.directWrite ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.writeDirect());
      return;
    }
    const key = JSON.stringify([event.type, event.netid, event.uid, event.address, event.detail]);
    const held = this.pending.get(key);
    if (held) held.count++;
    else if (this.pending.size < MAX_PENDING) this.pending.set(key, { event, at, count: 1 });
    else this.dropped++;
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref?.();
    }
  }

  /** Writes every held event now. Never rejects: a failed write goes to `onError` and its events are lost. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const held = [...this.pending.values()];
    const dropped = this.dropped;
    this.pending.clear();
    this.dropped = 0;
    const rows = held.map(({ event, at, count }) => rowOf(count > 1 ? { ...event, detail: `${event.detail ? `${event.detail} ` : ""}(×${count})` } : event, at));
    if (dropped)
      rows.push(rowOf({ type: "audit.dropped", detail: `${dropped} events beyond ${MAX_PENDING} distinct ones in ${FLUSH_MS} ms not recorded` }, held[0]?.at ?? Math.floor(Date.now() / 1000)));
    await Promise.all([this.writeDirect(), this.insert(rows)]);
  }

  /** Newest first, filtered by type, company and time (held events are written first). */
  async query(filter: { type?: string; netid?: string; since?: number; limit: number }) {
    const where: SQL[] = [];
    if (filter.type) where.push(eq(auditEvents.type, filter.type));
    if (filter.netid) where.push(eq(auditEvents.netid, filter.netid));
    if (filter.since !== undefined) where.push(gte(auditEvents.at, filter.since));
    await this.flush();
    return this.db.select().from(auditEvents).where(and(...where)).orderBy(desc(auditEvents.id)).limit(filter.limit);
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
