import type { ReservedSQL } from "bun";
import { RETENTION, type Retention } from "../../domain/retention";
import { RETENTION_BATCH, RETENTION_JOBS, RETENTION_MAX_BATCHES, scheduleRetentionRuns } from "../sql/retention";
import type { PgDb } from "./db";
import { USAGE_BUCKET_SECONDS } from "./live-event-log";

/** Fleet changes kept behind the newest stamp: the window the fleet trigger logs within. */
const FLEET_LOG_WINDOW = 50_000;
/** The advisory lock held by the instance running retention; the others skip their run. */
export const RETENTION_LOCK_KEY = 0x7472_6970_7265_746en; // "tripret"

/** Each job: the table, and the condition on a row past retention (`$1`: the cut-off time); then the tables of many instances. */
const JOBS: Array<readonly [keyof Retention | "fleetLog", string, string]> = [
  ...RETENTION_JOBS.map(([period, table, condition]) => [period, table, condition.replace("?", "$1")] as const),
  ["deadStreams", "live_streams", "expires_at < $1"],
  ["idleRateBuckets", "rate_buckets", "at < $1"],
  ["loginAttempts", "login_attempts", "started_at < $1"],
  // The quarter hours of live event bytes wholly before the window (the bound reads from the one holding its start).
  ["liveEvents", "live_event_usage", `bucket < floor($1::float8 / ${USAGE_BUCKET_SECONDS})`],
  ["fleetLog", "fleet_changes", `n < (SELECT n FROM fleet_generation WHERE id = 1) - ${FLEET_LOG_WINDOW}`],
];

/**
 * Deletes the rows past their retention and returns how many per table, or undefined when another instance holds
 * the retention lock (it is doing the same work right now).
 */
export async function prunePgExpired(db: PgDb, now: number, retention: Retention = RETENTION): Promise<Record<string, number> | undefined> {
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

async function prune(conn: ReservedSQL, now: number, retention: Retention): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const [kind, table, condition] of JOBS) {
    const statement = `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${condition} LIMIT ${RETENTION_BATCH}))`;
    const params = kind === "fleetLog" ? [] : [now - retention[kind]];
    let total = 0;
    for (let batch = 0; batch < RETENTION_MAX_BATCHES; batch++) {
      const { count } = await conn.unsafe(statement, params);
      total += count;
      if (count < RETENTION_BATCH) break;
    }
    deleted[table] = total;
  }
  deleted.live_event_usage_folded = await foldUsage(conn, now);
  return deleted;
}

/**
 * Folds the connections' rows of live_event_usage for the quarter hours before the last one into one row per company
 * and quarter (writer 0), so the bound's read stays a few hundred rows however many connections wrote. The last quarter
 * hour is left alone: a transaction begun then may still add to its rows. Returns the rows folded.
 */
async function foldUsage(conn: ReservedSQL, now: number): Promise<number> {
  const { count } = await conn.unsafe(
    `WITH moved AS (
       DELETE FROM live_event_usage WHERE writer <> 0 AND bucket < $1::bigint RETURNING netid, bucket, bytes
     )
     INSERT INTO live_event_usage (netid, bucket, writer, bytes)
     SELECT netid, bucket, 0, sum(bytes) FROM moved GROUP BY 1, 2
     ON CONFLICT (netid, bucket, writer) DO UPDATE SET bytes = live_event_usage.bytes + excluded.bytes`,
    [Math.floor(now / USAGE_BUCKET_SECONDS) - 1],
  );
  return count;
}

/**
 * Runs `prunePgExpired` 5 s from now and then every `intervalMs` (unref'd: it never keeps the process alive); the
 * instance that takes the lock does the work, the others skip that run. Returns a stop function.
 */
export function schedulePgRetention(
  db: PgDb,
  log: (deleted: Record<string, number>) => void,
  onError: (error: unknown) => void,
  intervalMs = 3600_000,
): () => void {
  return scheduleRetentionRuns((now) => prunePgExpired(db, now), log, onError, intervalMs);
}
