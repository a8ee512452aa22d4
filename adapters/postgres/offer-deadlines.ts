import type { OfferDeadlines } from "../../domain/trips/ports";
import type { PgDb } from "./db";

/**
 * Due offers in PostgreSQL, shared by every instance (docs/terms.md#the-acceptance-deadline-acceptby,
 * docs/terms.md#the-cascade-fallback): the due rows are locked with FOR UPDATE SKIP
 * LOCKED (as the outbox claims messages) and leased forward in the same statement, so two instances polling at once
 * take different bookings, and a lease its instance never finished comes due again.
 */
export class PgOfferDeadlines implements OfferDeadlines {
  constructor(private readonly db: PgDb) {}

  async claimDue(now: number, limit: number, leaseSeconds: number): Promise<string[]> {
    const rows = await this.db.$client.unsafe(
      "UPDATE bookings SET offer_due = $1 + $3 WHERE transaction_id IN " +
        "(SELECT transaction_id FROM bookings WHERE offer_due IS NOT NULL AND offer_due <= $1 ORDER BY offer_due LIMIT $2 FOR UPDATE SKIP LOCKED) " +
        "RETURNING transaction_id",
      [now, limit, leaseSeconds],
    );
    return [...rows].map((r: { transaction_id?: unknown }) => String(r.transaction_id));
  }
}
