import { rateDecision, type RateBudgets, type RateDecision } from "../../domain/rate-limit";
import type { PgDb } from "./db";

/**
 * Token buckets in the `rate_buckets` table, so that every instance spends from one budget per key. Each take is
 * one statement: an upsert that refills the bucket, spends a token when one is there and returns what is left,
 * serialised per key by the row lock — the arithmetic of `takeToken` (domain/rate-limit.ts), done by the database.
 *
 * `tokens` holds the level the last request found (refilled) minus one: what is left when it was admitted, a
 * negative number when it was refused (a refused request takes nothing: the bucket holds `tokens + 1`). The sign
 * is how the returned row says which it was.
 */
export class PgRateBudgets implements RateBudgets {
  constructor(private readonly db: PgDb) {}

  async take(key: string, capacity: number, periodSeconds: number, now: number): Promise<RateDecision> {
    const rate = capacity / periodSeconds;
    const [row]: Array<{ tokens: number }> = await this.db.$client`
      INSERT INTO rate_buckets AS b (key, tokens, at) VALUES (${key}, ${capacity}::float8 - 1, ${now}::float8)
      ON CONFLICT (key) DO UPDATE SET
        tokens = least(${capacity}::float8,
          (CASE WHEN b.tokens < 0 THEN b.tokens + 1 ELSE b.tokens END) + greatest(0, ${now}::float8 - b.at) * ${rate}::float8) - 1,
        at = ${now}::float8
      RETURNING tokens`;
    const stored = Number(row!.tokens);
    const allowed = stored >= 0;
    return rateDecision(allowed, allowed ? stored : stored + 1, capacity, periodSeconds);
  }
}
