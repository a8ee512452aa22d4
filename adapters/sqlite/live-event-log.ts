import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { distinctBodies, type LiveEvent, type LiveEventLog, type NewLiveEvent } from "../../domain/events/live-events";
import type { LiveEventUsage } from "../../domain/events/store-bounds";
import { VISIBLE_LIVE_EVENT_SQL as VISIBLE } from "../sql/status-sql";
import { WriteBehind } from "../sql/write-behind";
import type { Db } from "./db";

/** What a stream reads of a row: its body from live_event_bodies (rows written before it was kept there carry their own). */
const COLUMNS = "e.id, e.netid, e.type, coalesce(b.body, e.body) AS body";
const TABLES = "live_events e LEFT JOIN live_event_bodies b ON b.id = e.body_id";

/** Appended rows are written in one transaction at most this often. */
const FLUSH_MS = 50;
/** Rows held while the database refuses writes (busy, full); the oldest go first beyond this. */
const MAX_PENDING = 100_000;

/**
 * Live events in SQLite: `id` (AUTOINCREMENT) is the event id. Writers take turns on the file, so ids grow in
 * commit order and a reader that saw id n has seen every smaller one. Booking changes write their rows with the
 * change (INSERT_SQL, on either commit path); positions are appended here and written every 50 ms.
 */
export class SqliteLiveEventLog implements LiveEventLog, LiveEventUsage {
  /** A party's row: its body is kept once, in live_event_bodies (BODY_SQL), under `body_id`. */
  static readonly INSERT_SQL = "INSERT INTO live_events (netid, transaction_id, kind, role, type, body, body_id, created_at) VALUES (?, ?, ?, ?, ?, '', ?, ?)";
  /** An event's body, once for all its rows (a second row of the same event finds it there). */
  static readonly BODY_SQL = "INSERT INTO live_event_bodies (id, netid, bytes, body, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING";

  /** The INSERT_SQL arguments of a row. */
  static insertArgs(e: NewLiveEvent): SQLQueryBindings[] {
    return [e.netid, e.transactionId, e.kind, e.role, e.type, e.bodyId, e.createdAt];
  }

  /** The BODY_SQL arguments of each distinct body of `rows`. */
  static bodyArgs(rows: readonly NewLiveEvent[]): SQLQueryBindings[][] {
    return distinctBodies(rows).map((e) => [e.bodyId, e.payer, e.bytes, e.body, e.createdAt]);
  }

  private readonly sqlite: Database;
  private readonly insert: Statement;
  private readonly insertBody: Statement;
  private readonly afterRows: Statement<LiveEvent, [string, number, number]>;
  private readonly headRow: Statement<{ id: number | null }, []>;
  private readonly keptRow: Statement<{ n: number }, [number, string]>;
  private readonly newerRows: Statement<LiveEvent, [number, number, string, number]>;
  private readonly pending = new WriteBehind<NewLiveEvent>(() => this.flush(), FLUSH_MS, MAX_PENDING);

  constructor(
    db: Db,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.sqlite = db.$client;
    this.insert = this.sqlite.prepare(SqliteLiveEventLog.INSERT_SQL);
    this.insertBody = this.sqlite.prepare(SqliteLiveEventLog.BODY_SQL);
    this.afterRows = this.sqlite.prepare(
      `SELECT ${COLUMNS} FROM ${TABLES} WHERE e.netid = ? AND e.id > ? AND ${VISIBLE} ORDER BY e.id LIMIT ?`,
    );
    this.headRow = this.sqlite.prepare("SELECT max(id) AS id FROM live_events");
    this.keptRow = this.sqlite.prepare("SELECT count(*) AS n FROM live_events WHERE id = ? AND netid = ?");
    this.newerRows = this.sqlite.prepare(
      `SELECT ${COLUMNS} FROM ${TABLES} WHERE e.id > ? AND e.id <= ? AND e.netid IN (SELECT value FROM json_each(?)) AND ${VISIBLE} ORDER BY e.id LIMIT ?`,
    );
  }

  append(rows: NewLiveEvent[]): void {
    if (rows.length > 0) this.pending.add(...rows);
  }

  /** Writes the appended rows now. */
  flush(): void {
    const batch = this.pending.take();
    if (batch.length === 0) return;
    try {
      this.sqlite.transaction(() => {
        for (const args of SqliteLiveEventLog.bodyArgs(batch)) this.insertBody.run(...args);
        for (const row of batch) this.insert.run(...SqliteLiveEventLog.insertArgs(row));
      })();
    } catch (error) {
      this.pending.putBack(batch, FLUSH_MS * 10);
      this.onError(error);
    }
  }

  async after(netid: string, afterId: number, limit: number): Promise<LiveEvent[]> {
    return this.afterRows.all(netid, afterId, limit);
  }

  async recent(netid: string, type: string, limit: number): Promise<LiveEvent[]> {
    this.recentRows ??= this.sqlite.prepare(`SELECT ${COLUMNS} FROM ${TABLES} WHERE e.netid = ? AND e.type = ? ORDER BY e.id DESC LIMIT ?`);
    return this.recentRows.all(netid, type, limit);
  }

  private recentRows: Statement<LiveEvent, [string, string, number]> | undefined;

  async newer(netids: readonly string[], afterId: number, limit: number): Promise<{ events: LiveEvent[]; readTo: number }> {
    // One read transaction: the head and the rows are of the same moment.
    this.sqlite.exec("BEGIN");
    try {
      const head = this.headRow.get()?.id ?? 0;
      if (netids.length === 0 || head <= afterId) return { events: [], readTo: Math.max(head, afterId) };
      const events = this.newerRows.all(afterId, head, JSON.stringify(netids), limit);
      return { events, readTo: events.length === limit ? events[events.length - 1].id : head };
    } finally {
      this.sqlite.exec("COMMIT");
    }
  }

  async head(): Promise<number> {
    return this.headRow.get()?.id ?? 0;
  }

  async kept(netid: string, id: number): Promise<boolean> {
    return (this.keptRow.get(id, netid)?.n ?? 0) > 0;
  }

  /** The bytes of bodies `netid`'s changes stored since a time (the live_event_bodies_usage index answers it alone). */
  async usedSince(netid: string, sinceSeconds: number): Promise<number> {
    this.usage ??= this.sqlite.prepare("SELECT coalesce(sum(bytes), 0) AS n FROM live_event_bodies WHERE netid = ? AND created_at >= ?");
    return this.usage.get(netid, sinceSeconds)?.n ?? 0;
  }

  private usage: Statement<{ n: number }, [string, number]> | undefined;

  close(): void {
    this.flush();
  }
}
