import type { OfferDeadlines } from "../../domain/trips/ports";
import type { Db } from "./db";

/**
 * Due offers in SQLite (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback): one
 * UPDATE … RETURNING both finds the bookings whose `offer_due` has come
 * (its partial index) and leases them forward, under SQLite's single writer, so a second process on the file never
 * takes the same ones.
 */
export class SqliteOfferDeadlines implements OfferDeadlines {
  constructor(private readonly db: Db) {}

  async claimDue(now: number, limit: number, leaseSeconds: number): Promise<string[]> {
    const rows = this.db.$client
      .query<{ transaction_id: string }, [number, number, number]>(
        "UPDATE bookings SET offer_due = ?1 + ?3 WHERE transaction_id IN " +
          "(SELECT transaction_id FROM bookings WHERE offer_due IS NOT NULL AND offer_due <= ?1 ORDER BY offer_due LIMIT ?2) RETURNING transaction_id",
      )
      .all(now, limit, leaseSeconds);
    return rows.map((r) => r.transaction_id);
  }
}
