import { LIVE_EVENT_RETENTION_SECONDS } from "../../domain/events/live-events";
import type { ReservedSQL } from "bun";
import type { PgDb } from "./db";

/** How long finished rows are kept, in seconds: the SQLite adapter's periods. */
export interface PgRetention {
  /** Delivered outbox messages (failed ones stay: they can be re-queued). */
  deliveredOutbox: number;
  /** Security events (the audit CLI reads them). */
  audit: number;
  /** Released platform tokens (401 either way; the row only says when). */
  releasedTokens: number;
  /** Signed-out core tokens, after they expired (they fail on their own then). */
  revokedTokens: number;
  /** Failed logins: only the last 15 minutes count for throttling. */
  loginFailures: number;
  /** Idempotency-Key results (replayed for 24 h). */
  idempotencyKeys: number;
  /** Live events (an event stream resumes within 24 h). */
  liveEvents: number;
  /** Event streams closed (or whose instance died) this long ago: no longer a reason to log positions. */
  deadStreams: number;
  /** Network quotes past their validUntil (a booking of one answers 409 QUOTE_EXPIRED meanwhile, 404 after). */
  networkQuotes: number;
  /** Rate buckets not used for this long (a full hour's budget has refilled by then). */
  idleRateBuckets: number;
  /** Login attempts left in flight by an instance that died (the throttle ignores them past this lease). */
  loginAttempts: number;
}

export const DEFAULT_PG_RETENTION: PgRetention = {
  deliveredOutbox: 7 * 86400,
  audit: 90 * 86400,
  releasedTokens: 86400,
  revokedTokens: 60,
  loginFailures: 3600,
  idempotencyKeys: 86400,
  liveEvents: LIVE_EVENT_RETENTION_SECONDS,
  deadStreams: LIVE_EVENT_RETENTION_SECONDS,
  networkQuotes: 86400,
  idleRateBuckets: 3600,
  loginAttempts: 60,
};

/** Fleet changes kept behind the newest stamp: the window the fleet trigger logs within. */
const FLEET_LOG_WINDOW = 50_000;
/** Rows deleted per statement: each batch is its own short transaction, so requests keep flowing. */
const BATCH = 5000;
/** Batches per table per run; the rest waits for the next run. */
const MAX_BATCHES = 200;
/** The advisory lock held by the instance running retention; the others skip their run. */
export const RETENTION_LOCK_KEY = 0x7472_6970_7265_746en; // "tripret"

/** Each job: the table, and the condition on a row past retention (`$1`: the cut-off time). */
const JOBS: Array<[keyof PgRetention | "fleetLog", string, string]> = [
  ["deliveredOutbox", "outbox_messages", "status = 'delivered' AND delivered_at < $1"],
  ["audit", "audit_events", "at < $1"],
  ["releasedTokens", "platform_tokens", "released_at IS NOT NULL AND released_at < $1"],
  ["revokedTokens", "revoked_tokens", "expires_at < $1"],
  ["loginFailures", "login_failures", "at < $1"],
  ["idempotencyKeys", "idempotency_keys", "created_at < $1"],
  ["liveEvents", "live_events", "created_at < $1"],
  ["deadStreams", "live_streams", "expires_at < $1"],
  ["networkQuotes", "network_quotes", "valid_until < $1"],
  ["idleRateBuckets", "rate_buckets", "at < $1"],
  ["loginAttempts", "login_attempts", "started_at < $1"],
  ["fleetLog", "fleet_changes", `n < (SELECT n FROM fleet_generation WHERE id = 1) - ${FLEET_LOG_WINDOW}`],
];

/**
 * Deletes the rows past their retention and returns how many per table, or undefined when another instance holds
 * the retention lock (it is doing the same work right now).
 */
export async function prunePgExpired(db: PgDb, now: number, retention: PgRetention = DEFAULT_PG_RETENTION): Promise<Record<string, number> | undefined> {
  const conn = await db.$client.reserve();
  try {
    const [{ locked }] = await conn.unsafe("SELECT pg_try_advisory_lock($1::bigint) AS locked", [RETENTION_LOCK_KEY.toString()]);
    if (!locked) return undefined;
    try {
      return await prune(conn, now, retention);
    } finally {
      await conn.unsafe("SELECT pg_advisory_unlock($1::bigint)", [RETENTION_LOCK_KEY.toString()]);
    }
  } finally {
    conn.release();
  }
}

async function prune(conn: ReservedSQL, now: number, retention: PgRetention): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const [kind, table, condition] of JOBS) {
    const statement = `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${condition} LIMIT ${BATCH}))`;
    const params = kind === "fleetLog" ? [] : [now - retention[kind]];
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const { count } = await conn.unsafe(statement, params);
      total += count;
      if (count < BATCH) break;
    }
    deleted[table] = total;
  }
  return deleted;
}

/**
 * Runs `prunePgExpired` 5 s from now and then every `intervalMs` (unref'd: it never keeps the process alive); the
 * instance that takes the lock does the work, the others skip that run. Returns a stop function.
 */
export function schedulePgRetention(db: PgDb, log: (deleted: Record<string, number>) => void, onError: (error: unknown) => void, intervalMs = 3600_000): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await prunePgExpired(db, Math.floor(Date.now() / 1000));
      if (deleted && Object.values(deleted).some((n) => n > 0)) log(deleted);
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
  };
  const first = setTimeout(run, 5000);
  const timer = setInterval(run, intervalMs);
  first.unref?.();
  timer.unref?.();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
