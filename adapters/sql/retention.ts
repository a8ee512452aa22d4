import type { Retention } from "../../domain/retention";
import { NETWORK_QUOTE_VALIDITY_SECONDS } from "../../domain/pricing/network-quote";
import { QUOTE_USAGE_BUCKET_SECONDS } from "./network-quote-rows";

/** Rows deleted per statement: each batch is its own short transaction, so requests keep flowing. */
export const RETENTION_BATCH = 5000;
/** Batches per table per run; the rest waits for the next run. */
export const RETENTION_MAX_BATCHES = 200;

/** A table pruned by a retention period, and the condition on its rows past it (`?` stands for the cut-off time). */
export type RetentionJob = readonly [period: keyof Retention, table: string, condition: string];

/** The tables both databases prune, in the order they are pruned. */
export const RETENTION_JOBS: readonly RetentionJob[] = [
  ["deliveredOutbox", "outbox_messages", "status = 'delivered' AND delivered_at < ?"],
  ["audit", "audit_events", "at < ?"],
  ["releasedTokens", "platform_tokens", "released_at IS NOT NULL AND released_at < ?"],
  ["revokedTokens", "revoked_tokens", "expires_at < ?"],
  ["loginFailures", "login_failures", "at < ?"],
  ["idempotencyKeys", "idempotency_keys", "created_at < ?"],
  ["liveEvents", "live_events", "created_at < ?"],
  ["liveEvents", "live_event_bodies", "created_at < ?"],
  // Past their validity, and no booking made from them may still move (docs/terms.md#deadlines-within-the-trip).
  ["networkQuotes", "network_quotes", "kept_until < ?"],
  // An hour of a company's kept quote bytes once every quote made in it is past the cut-off.
  ["networkQuotes", "network_quote_usage", `(bucket + 1) * ${QUOTE_USAGE_BUCKET_SECONDS} + ${NETWORK_QUOTE_VALIDITY_SECONDS} <= ?`],
  ["earlierOffers", "earlier_offers", "submit_date < ?"],
  // A year of statements and the month being closed stay whole (docs/settlement.md#how-long-statements-keep-their-records).
  ["settlementRecords", "cost_recoveries", "pickup_date < ?"],
  ["settlementRecords", "statement_disputes", "state <> 'OPEN' AND answered_at < ?"],
];

/** Rows deleted per table by one run; undefined when the run was skipped (another instance is doing it). */
export type Pruned = Record<string, number> | undefined;

/**
 * Runs `prune` (given the time, in Unix seconds) 5 s from now and then every `intervalMs`, unref'd: it never keeps
 * the process alive. A run due while the last one still goes is skipped. A run that deleted anything is logged.
 * Returns a stop function.
 */
export function scheduleRetentionRuns(
  prune: (now: number) => Pruned | Promise<Pruned>,
  log: (deleted: Record<string, number>) => void,
  onError: (error: unknown) => void,
  intervalMs: number,
): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const deleted = await prune(Math.floor(Date.now() / 1000));
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
