import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import type { AuditEvent, AuditLog } from "../../domain/ports";
import type { Db } from "./db";
import { auditEvents } from "./schema";

/** Events an attacker can cause at will: written in batches, repeats merged, so a flood costs no fsync each. */
const BATCHED = new Set(["access.denied", "login.failed", "login.throttled"]);
const FLUSH_MS = 200;
/** Distinct events held per batch; more are counted in one "audit.dropped" row. */
const MAX_PENDING = 1000;

/**
 * The security event log. Events anyone can cause by sending bad credentials are held for up to 200 ms and
 * written in one transaction, identical ones as one row with a count — a burst of 401s is one commit, and its
 * rows grow with the distinct events, not with the requests. `flush()` writes them at once (shutdown, tests).
 */
export class SqliteAuditLog implements AuditLog {
  private readonly pending = new Map<string, { event: AuditEvent; at: number; count: number }>();
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly db: Db) {}

  record(event: AuditEvent, at: number): void {
    if (!BATCHED.has(event.type)) {
      this.insert(event, at);
      return;
    }
    const key = JSON.stringify([event.type, event.netid, event.uid, event.address, event.detail]);
    const held = this.pending.get(key);
    if (held) held.count++;
    else if (this.pending.size < MAX_PENDING) this.pending.set(key, { event, at, count: 1 });
    else this.dropped++;
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref?.();
    }
  }

  /** Writes the held events now (one transaction). Never throws: a failure is reported by the next write. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 && this.dropped === 0) return;
    const held = [...this.pending.values()];
    const dropped = this.dropped;
    this.pending.clear();
    this.dropped = 0;
    try {
      this.db.$client.transaction(() => {
        for (const { event, at, count } of held) this.insert(count > 1 ? { ...event, detail: `${event.detail ? `${event.detail} ` : ""}(×${count})` } : event, at);
        if (dropped) this.insert({ type: "audit.dropped", detail: `${dropped} events beyond ${MAX_PENDING} distinct ones in ${FLUSH_MS} ms not recorded` }, held[0]?.at ?? Math.floor(Date.now() / 1000));
      })();
    } catch {}
  }

  private insert(event: AuditEvent, at: number): void {
    this.db.insert(auditEvents).values({ at, type: event.type, netid: event.netid ?? null, uid: event.uid ?? null, address: event.address ?? null, detail: event.detail ?? null }).run();
  }

  /** Newest first, filtered by type, company and time (held events are written first). */
  query(filter: { type?: string; netid?: string; since?: number; limit: number }) {
    const where: SQL[] = [];
    if (filter.type) where.push(eq(auditEvents.type, filter.type));
    if (filter.netid) where.push(eq(auditEvents.netid, filter.netid));
    if (filter.since !== undefined) where.push(gte(auditEvents.at, filter.since));
    this.flush();
    return this.db.select().from(auditEvents).where(and(...where)).orderBy(desc(auditEvents.id)).limit(filter.limit).all();
  }
}
