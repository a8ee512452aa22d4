import { LIVE_EVENT_RETENTION_SECONDS } from "../../domain/events/live-events";
import type { Database } from "bun:sqlite";

/** How long finished rows are kept, in seconds. */
export interface Retention {
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
  /** Network quotes past their validUntil (a booking of one answers 409 QUOTE_EXPIRED meanwhile, 404 after). */
  networkQuotes: number;
}

export const DEFAULT_RETENTION: Retention = {
  deliveredOutbox: 7 * 86400,
  audit: 90 * 86400,
  releasedTokens: 86400,
  revokedTokens: 60,
  loginFailures: 3600,
  idempotencyKeys: 86400,
  liveEvents: LIVE_EVENT_RETENTION_SECONDS,
  networkQuotes: 86400,
};

/** Rows deleted per statement: each batch is its own short write transaction, so requests keep flowing. */
const BATCH = 5000;
/** Batches per table per run; the rest waits for the next run. */
const MAX_BATCHES = 200;

const JOBS: Array<[keyof Retention, string, string]> = [
  ["deliveredOutbox", "outbox_messages", "status = 'delivered' AND delivered_at < ?"],
  ["audit", "audit_events", "at < ?"],
  ["releasedTokens", "platform_tokens", "released_at IS NOT NULL AND released_at < ?"],
  ["revokedTokens", "revoked_tokens", "expires_at < ?"],
  ["loginFailures", "login_failures", "at < ?"],
  ["idempotencyKeys", "idempotency_keys", "created_at < ?"],
  ["liveEvents", "live_events", "created_at < ?"],
  ["networkQuotes", "network_quotes", "valid_until < ?"],
];

/** Deletes the rows past their retention; returns how many per table. */
export function pruneExpired(sqlite: Database, now: number, retention: Retention = DEFAULT_RETENTION): Record<string, number> {
  const deleted: Record<string, number> = {};
  for (const [kind, table, condition] of JOBS) {
    const statement = sqlite.query(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${condition} LIMIT ${BATCH})`);
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const { changes } = statement.run(now - retention[kind]);
      total += changes;
      if (changes < BATCH) break;
    }
    deleted[table] = total;
  }
  return deleted;
}

/** Runs `pruneExpired` now and then every `intervalMs` (unref'd: it never keeps the process alive). Returns a stop function. */
export function scheduleRetention(sqlite: Database, log: (deleted: Record<string, number>) => void, onError: (error: unknown) => void, intervalMs = 3600_000): () => void {
  const run = () => {
    try {
      const deleted = pruneExpired(sqlite, Math.floor(Date.now() / 1000));
      if (Object.values(deleted).some((n) => n > 0)) log(deleted);
    } catch (error) {
      onError(error);
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
