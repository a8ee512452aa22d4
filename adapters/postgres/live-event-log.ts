import { distinctBodies, type LiveEvent, type LiveEventLog, type NewLiveEvent } from "../../domain/events/live-events";
import type { LiveEventUsage } from "../../domain/events/store-bounds";
import { VISIBLE_LIVE_EVENT_SQL as VISIBLE } from "../sql/status-sql";
import { WriteBehind } from "../sql/write-behind";
import type { PgDb } from "./db";

/** Appended rows are written in one statement at most this often. */
const FLUSH_MS = 50;
/** Rows held while the database refuses writes; the oldest go first beyond this. */
const MAX_PENDING = 100_000;
/** Rows one sequencer run numbers at most. */
const SEQUENCE_BATCH = 10_000;
/** The advisory lock a sequencer run holds until it commits: runs never overlap, on any instance. */
export const LIVE_SEQUENCER_LOCK_KEY = 0x6c69_7665_7365_7131n; // "liveseq1"

interface Row {
  id: string | number;
  netid: string;
  type: string;
  body: string;
}

/** What a stream reads of a row: its body from live_event_bodies (rows written before it was kept there carry their own). */
const COLUMNS = "e.seq AS id, e.netid, e.type, coalesce(b.body, e.body) AS body";
const TABLES = "live_events e LEFT JOIN live_event_bodies b ON b.id = e.body_id";

const toEvent = (r: Row): LiveEvent => ({ id: Number(r.id), netid: r.netid, type: r.type, body: r.body });

/**
 * Live events on PostgreSQL, shared by every instance. A transaction's rows go in with `seq` null; the sequencer
 * numbers committed rows (in insertion order) under an advisory lock held until its commit, so every numbered
 * row below a visible number is visible too — a reader that read up to n never misses a smaller one, whichever
 * instance wrote it and however transactions interleaved. A booking's later change is inserted after its earlier
 * one committed, so it is numbered after it. `seq` is the event id.
 */
export class PgLiveEventLog implements LiveEventLog, LiveEventUsage {
  private readonly pending = new WriteBehind<NewLiveEvent>(() => void this.flush(), FLUSH_MS, MAX_PENDING);
  private writing: Promise<void> = Promise.resolve();
  private sequencing: Promise<void> | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  append(rows: NewLiveEvent[]): void {
    if (rows.length > 0) this.pending.add(...rows);
  }

  /** Writes the appended rows (after any write under way). Never rejects: failures go to `onError`. */
  flush(): Promise<void> {
    const run = this.writing.then(() => this.write());
    this.writing = run;
    return run;
  }

  private async write(): Promise<void> {
    const batch = this.pending.take();
    if (batch.length === 0) return;
    const bodies = distinctBodies(batch);
    try {
      // One statement: each body once, then every party's row naming it.
      await this.db.$client`
        WITH b AS (
          INSERT INTO live_event_bodies (id, netid, bytes, body, created_at)
          SELECT * FROM unnest(${bodies.map((r) => r.bodyId)}::text[], ${bodies.map((r) => r.payer)}::text[], ${bodies.map((r) => r.bytes)}::bigint[],
            ${bodies.map((r) => r.body)}::text[], ${bodies.map((r) => r.createdAt)}::bigint[])
          ON CONFLICT (id) DO NOTHING
        )
        INSERT INTO live_events (netid, transaction_id, kind, role, type, body, body_id, created_at)
        SELECT n, t, k, r, ty, '', bi, c FROM unnest(
          ${batch.map((r) => r.netid)}::text[], ${batch.map((r) => r.transactionId)}::text[], ${batch.map((r) => r.kind)}::text[],
          ${batch.map((r) => r.role)}::text[], ${batch.map((r) => r.type)}::text[], ${batch.map((r) => r.bodyId)}::text[],
          ${batch.map((r) => r.createdAt)}::bigint[]) AS x(n, t, k, r, ty, bi, c)`;
    } catch (error) {
      this.pending.putBack(batch, FLUSH_MS * 10);
      this.onError(error);
    }
  }

  /**
   * Numbers the committed rows not numbered yet, oldest first, after the highest number — unless another run
   * (this instance's or another's) holds the lock, whose numbers readers see once it commits.
   */
  sequence(): Promise<void> {
    this.sequencing ??= (async () => {
      try {
        await this.db.$client.begin(async (tx) => {
          const [{ locked }] = await tx.unsafe("SELECT pg_try_advisory_xact_lock($1::bigint) AS locked", [LIVE_SEQUENCER_LOCK_KEY.toString()]);
          if (!locked) return;
          const todo: Array<{ id: string | number }> = await tx.unsafe(`SELECT id FROM live_events WHERE seq IS NULL ORDER BY id LIMIT ${SEQUENCE_BATCH}`);
          if (todo.length === 0) return;
          // A block of numbers from the sequence (never handed out twice, whatever was pruned), in insertion order.
          const [{ last }] = await tx.unsafe("SELECT setval('live_event_numbers', nextval('live_event_numbers') + $1::bigint - 1) AS last", [todo.length]);
          await tx.unsafe(
            `UPDATE live_events e SET seq = $1::bigint - $2::bigint + t.n FROM unnest($3::bigint[]) WITH ORDINALITY AS t(id, n) WHERE e.id = t.id`,
            [last, todo.length, todo.map((r) => r.id)],
          );
        });
      } catch (error) {
        this.onError(error);
      } finally {
        this.sequencing = undefined;
      }
    })();
    return this.sequencing;
  }

  /** Runs the sequencer every `everyMs` (so rows are numbered while no stream reads here). Returns a stop function. */
  startSequencer(everyMs = 500): () => void {
    const timer = setInterval(() => void this.sequence(), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  async after(netid: string, afterId: number, limit: number): Promise<LiveEvent[]> {
    const rows: Row[] = await this.db.$client.unsafe(
      `SELECT ${COLUMNS} FROM ${TABLES} WHERE e.netid = $1 AND e.seq > $2 AND ${VISIBLE} ORDER BY e.seq LIMIT $3`,
      [netid, afterId, limit],
    );
    return rows.map(toEvent);
  }

  async newer(netids: readonly string[], afterId: number, limit: number): Promise<{ events: LiveEvent[]; readTo: number }> {
    // The head first (it numbers what was committed): every number up to it is visible by then, so the rows read next miss none below it.
    const head = await this.head();
    if (netids.length === 0 || head <= afterId) return { events: [], readTo: Math.max(head, afterId) };
    const rows: Row[] = await this.db.$client.unsafe(
      `SELECT ${COLUMNS} FROM ${TABLES}
       WHERE e.seq > $1 AND e.seq <= $2 AND e.netid = ANY($3::text[]) AND ${VISIBLE} ORDER BY e.seq LIMIT $4`,
      [afterId, head, [...netids], limit],
    );
    const events = rows.map(toEvent);
    return { events, readTo: events.length === limit ? events[events.length - 1].id : head };
  }

  /** The newest number, once what was committed so far is numbered. */
  async head(): Promise<number> {
    await this.sequence();
    const [row]: Array<{ head: string | number | null }> = await this.db.$client`SELECT max(seq) AS head FROM live_events`;
    return Number(row?.head ?? 0);
  }

  async kept(netid: string, id: number): Promise<boolean> {
    const rows = await this.db.$client`SELECT 1 FROM live_events WHERE seq = ${id} AND netid = ${netid}`;
    return rows.length > 0;
  }

  /** The bytes of bodies `netid`'s changes stored since a time, on every instance (the live_event_bodies_usage index). */
  async usedSince(netid: string, sinceSeconds: number): Promise<number> {
    const [row]: Array<{ n: string | number }> = await this.db.$client`
      SELECT coalesce(sum(bytes), 0) AS n FROM live_event_bodies WHERE netid = ${netid} AND created_at >= ${sinceSeconds}`;
    return Number(row?.n ?? 0);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.sequencing;
  }
}
