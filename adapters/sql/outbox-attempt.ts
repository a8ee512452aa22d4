import { sql, type Column } from "drizzle-orm";
import type { AttemptOutcome } from "../../domain/delivery/ports";

/**
 * What an attempt's outcome sets on its outbox row, the same in both databases: delivered; or pending again until
 * `retryAt`; or failed after the last retry. `attempts` is the row's attempts column (counted up in the database).
 */
export function attemptValues(outcome: AttemptOutcome, attempts: Column) {
  if (outcome.ok) return { status: "delivered", attempts: sql`${attempts} + 1`, lastStatus: outcome.status, lastError: null, deliveredAt: outcome.at };
  return {
    status: outcome.retryAt === undefined ? "failed" : "pending",
    attempts: sql`${attempts} + 1`,
    lastError: outcome.error,
    lastStatus: outcome.status,
    ...(outcome.retryAt === undefined ? {} : { nextAttemptAt: outcome.retryAt }),
  };
}

/**
 * What a replay sets on its outbox row: pending again from `at`, attempts counted anew. The due time always moves
 * forward (by a millisecond at least), so an attempt that was under way tells the replay from its own claim.
 */
export function requeued(at: number) {
  return {
    status: "pending",
    attempts: 0,
    nextAttemptAt: sql<number>`CASE WHEN next_attempt_at + 0.001 > CAST(${at} AS DOUBLE PRECISION) THEN next_attempt_at + 0.001
      ELSE CAST(${at} AS DOUBLE PRECISION) END`,
    deliveredAt: null,
  };
}
