import { and, count, eq, gte, sql } from "drizzle-orm";
import type { NetworkQuoteRepository } from "../../domain/pricing/ports";
import type { NetworkQuote } from "../../domain/pricing/network-quote";
import type { PgDb } from "./db";
import { networkQuotes, networkQuoteUsage } from "./schema";
import { bucketOf, keptQuoteBytesOf, keptQuoteBytesSql, networkQuoteOf, networkQuoteRow, usageMoveOf } from "../sql/network-quote-rows";

/**
 * Network quotes in PostgreSQL: one row each, written once, read by any instance. A quote is a price list kept a
 * day, not a booking: its transaction commits with `synchronous_commit = off` (SET LOCAL: that transaction only),
 * so the answer does not wait for the WAL flush. The row is visible to every session at once; only a crash of the
 * database server's OS (or of PostgreSQL itself) within a fraction of a second (wal_writer_delay, 3 × by default at
 * most) can lose it, and then the client simply asks again. Every other transaction keeps synchronous commits.
 */
export class PgNetworkQuoteRepository implements NetworkQuoteRepository {
  constructor(private readonly db: PgDb) {}

  async save(quote: NetworkQuote, bytes: number): Promise<void> {
    const row = networkQuoteRow(quote);
    await this.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL synchronous_commit = off`);
      await tx.insert(networkQuotes).values(row);
      // Its bytes counted to its maker in the same transaction.
      await tx
        .insert(networkQuoteUsage)
        .values({ netid: row.makerNetid, bucket: bucketOf(quote.createdAt), bytes })
        .onConflictDoUpdate({ target: [networkQuoteUsage.netid, networkQuoteUsage.bucket], set: { bytes: sql`${networkQuoteUsage.bytes} + excluded.bytes` } });
    });
  }

  /** Keeps the quote longer and moves its bytes to the hour they now count in, in one transaction (usageMoveOf). */
  async keepUntil(quoteId: string, until: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      // FOR UPDATE: two bookings of one quote cannot both move its bytes.
      const [row] = await tx.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).for("update");
      if (!row || row.keptUntil >= until) return;
      await tx.update(networkQuotes).set({ keptUntil: until }).where(eq(networkQuotes.quoteId, quoteId));
      const move = usageMoveOf(row, until);
      if (!move) return;
      const { netid, from, to, bytes } = move;
      const usage = networkQuoteUsage;
      await tx
        .update(usage)
        .set({ bytes: sql`${usage.bytes} - ${bytes}` })
        .where(and(eq(usage.netid, netid), eq(usage.bucket, from)));
      await tx
        .insert(usage)
        .values({ netid, bucket: to, bytes })
        .onConflictDoUpdate({ target: [usage.netid, usage.bucket], set: { bytes: sql`${usage.bytes} + excluded.bytes` } });
    });
  }

  async countSince(makerNetid: string, sinceSeconds: number): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(networkQuotes)
      .where(and(eq(networkQuotes.makerNetid, makerNetid), gte(networkQuotes.createdAt, sinceSeconds)));
    return Number(row?.n ?? 0);
  }

  async keptSince(makerNetid: string, sinceSeconds: number): Promise<{ bytes: number; since?: number }> {
    const rows = await this.db.$client.unsafe(keptQuoteBytesSql((n) => `$${n}`), [makerNetid, bucketOf(sinceSeconds)]);
    return keptQuoteBytesOf(rows[0]);
  }

  async find(quoteId: string): Promise<NetworkQuote | undefined> {
    const [row] = await this.db.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).limit(1);
    return row ? networkQuoteOf(row) : undefined;
  }
}
