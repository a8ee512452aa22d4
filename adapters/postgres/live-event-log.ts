import { distinctBodies, type LiveEvent, type LiveEventLog, type NewLiveEvent } from "../../domain/events/live-events";
import type { LiveEventUsage } from "../../domain/events/store-bounds";
import { VISIBLE_LIVE_EVENT_SQL as VISIBLE } from "../sql/status-sql";
import { WriteBehind } from "../sql/write-behind";
import type { SQL } from "bun";
import type { PgDb } from "./db";

/** The stored bytes are counted per company and quarter hour (live_event_usage.bucket = created_at / this). */
export const USAGE_BUCKET_SECONDS = 900;

/**
 * A CTE clause counting the bodies a `RETURNING netid, bytes, created_at` CTE named `inserted` stored (those it
 * found stored already are not returned, so not counted twice), on this connection's own rows of live_event_usage:
 * no other transaction ever waits on them. Every statement that stores bodies ends with it.
 */
export const COUNT_USAGE = `usage AS (
  INSERT INTO live_event_usage (netid, bucket, writer, bytes)
  SELECT netid, created_at / ${USAGE_BUCKET_SECONDS}, pg_backend_pid(), sum(bytes) FROM inserted GROUP BY 1, 2
  ON CONFLICT (netid, bucket, writer) DO UPDATE SET bytes = live_event_usage.bytes + excluded.bytes
)`;

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

/** Appended rows: each body once (counted in live_event_usage), then every party's row naming it. */
const WRITE = `WITH inserted AS (
  INSERT INTO live_event_bodies (id, netid, bytes, body, created_at)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])
  ON CONFLICT (id) DO NOTHING
  RETURNING netid, bytes, created_at
), ${COUNT_USAGE}
INSERT INTO live_events (netid, transaction_id, kind, role, type, body, body_id, created_at)
SELECT n, t, k, r, ty, '', bi, c
  FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[]) AS x(n, t, k, r, ty, bi, c)`;

/**
 * Stores `rows` with one statement on `client` (a pool, or a transaction's connection): each body once, its bytes
 * counted in live_event_usage, then every party's row naming it, unnumbered (the sequencer numbers it once committed).
 */
export async function insertLiveEvents(client: Pick<SQL, "unsafe">, rows: readonly NewLiveEvent[]): Promise<void> {
  // One array a column ($1…$5 the bodies', $6…$12 the rows'), in WRITE's order.
  const columns = (list: readonly NewLiveEvent[], keys: Array<keyof NewLiveEvent>) => keys.map((key) => list.map((r) => r[key]));
  await client.unsafe(WRITE, [
    ...columns(distinctBodies(rows), ["bodyId", "payer", "bytes", "body", "createdAt"]),
    ...columns(rows, ["netid", "transactionId", "kind", "role", "type", "bodyId", "createdAt"]),
  ]);
}

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
    try {
      await insertLiveEvents(this.db.$client, batch);
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

  async recent(netid: string, type: string, limit: number): Promise<LiveEvent[]> {
    const rows: Row[] = await this.db.$client.unsafe(
      `SELECT ${COLUMNS} FROM ${TABLES} WHERE e.netid = $1 AND e.type = $2 AND e.seq IS NOT NULL ORDER BY e.seq DESC LIMIT $3`,
      [netid, type, limit],
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

  /**
   * The bytes of bodies `netid`'s changes stored since a time, on every instance: the company's rows of
   * live_event_usage from the quarter hour holding `sinceSeconds` on (up to 15 minutes more than the exact window,
   * never less), a few hundred rows however many bodies are stored.
   */
  async usedSince(netid: string, sinceSeconds: number): Promise<number> {
    const [row]: Array<{ n: string | number }> = await this.db.$client.unsafe(
      "SELECT coalesce(sum(bytes), 0) AS n FROM live_event_usage WHERE netid = $1 AND bucket >= $2",
      [netid, Math.floor(sinceSeconds / USAGE_BUCKET_SECONDS)],
    );
    return Number(row?.n ?? 0);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.sequencing;
  }
}
