import { sql, type Column } from "drizzle-orm";
import type { AttemptOutcome } from "../domain/delivery/ports";

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
