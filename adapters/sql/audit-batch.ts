import { and, eq, gte, type Column, type SQL } from "drizzle-orm";
import type { AuditEvent } from "../../domain/ports";

/** Events an attacker can cause at will: written in batches, repeats merged, so a flood costs no write each. */
const BATCHED = new Set(["access.denied", "login.failed", "login.throttled"]);
const FLUSH_MS = 200;
/** Distinct events held per batch; more are counted in one "audit.dropped" row. */
const MAX_PENDING = 1000;

/** A security event's row, the same in both databases. */
export interface AuditRow {
  at: number;
  type: string;
  netid: string | null;
  uid: string | null;
  address: string | null;
  detail: string | null;
}

export const auditRow = (event: AuditEvent, at: number): AuditRow => ({
  at,
  type: event.type,
  netid: event.netid ?? null,
  uid: event.uid ?? null,
  address: event.address ?? null,
  detail: event.detail ?? null,
});

/** The rows an audit query selects: of a type, of a company, since a time (each when given). */
export function auditWhere(t: { type: Column; netid: Column; at: Column }, filter: { type?: string; netid?: string; since?: number }): SQL | undefined {
  const where: SQL[] = [];
  if (filter.type) where.push(eq(t.type, filter.type));
  if (filter.netid) where.push(eq(t.netid, filter.netid));
  if (filter.since !== undefined) where.push(gte(t.at, filter.since));
  return and(...where);
}

/**
 * The security event log's batching, for either database to write: events anyone can cause by sending bad
 * credentials are held for up to 200 ms, identical ones as one row with a count, and more than 1000 distinct ones
 * in a window are counted in one "audit.dropped" row — so a burst of 401s is one write, and its rows grow with the
 * distinct events, not with the requests. Other events are the log's to write at once.
 */
export class AuditBatch {
  private readonly pending = new Map<string, { event: AuditEvent; at: number; count: number }>();
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `due` is called when a held event has waited its 200 ms: the log then writes what `take` hands over. */
  constructor(private readonly due: () => void) {}

  /** Holds `event` when it is of a batched type (true); false when the log is to write it at once. */
  hold(event: AuditEvent, at: number): boolean {
    if (!BATCHED.has(event.type)) return false;
    const key = JSON.stringify([event.type, event.netid, event.uid, event.address, event.detail]);
    const held = this.pending.get(key);
    if (held) held.count++;
    else if (this.pending.size < MAX_PENDING) this.pending.set(key, { event, at, count: 1 });
    else this.dropped++;
    if (!this.timer) {
      this.timer = setTimeout(this.due, FLUSH_MS);
      this.timer.unref?.();
    }
    return true;
  }

  /** The held events as rows to write now, in the order first seen (repeats with their count), the batch emptied. */
  take(): AuditRow[] {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const held = [...this.pending.values()];
    const dropped = this.dropped;
    this.pending.clear();
    this.dropped = 0;
    const counted = (event: AuditEvent, count: number): AuditEvent => ({ ...event, detail: `${event.detail ? `${event.detail} ` : ""}(×${count})` });
    const rows = held.map(({ event, at, count }) => auditRow(count > 1 ? counted(event, count) : event, at));
    if (dropped) {
      const detail = `${dropped} events beyond ${MAX_PENDING} distinct ones in ${FLUSH_MS} ms not recorded`;
      rows.push(auditRow({ type: "audit.dropped", detail }, held[0]?.at ?? Math.floor(Date.now() / 1000)));
    }
    return rows;
  }
}
