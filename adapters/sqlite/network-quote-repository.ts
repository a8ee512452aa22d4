import { and, count, eq, gte, sql } from "drizzle-orm";
import type { NetworkQuoteRepository } from "../../domain/pricing/ports";
import type { NetworkQuote } from "../../domain/pricing/network-quote";
import type { Db } from "./db";
import { networkQuotes, networkQuoteUsage } from "./schema";
import { bucketOf, keptQuoteBytesOf, keptQuoteBytesSql, networkQuoteOf, networkQuoteRow, usageMoveOf } from "../sql/network-quote-rows";

/**
 * Network quotes in SQLite: one row each, written once. A quote is a price list kept a day, not a booking: in WAL
 * mode its commit does not wait for an fsync (`synchronous = NORMAL` for that one statement, the connection's own
 * setting restored at once). It is readable and bookable as soon as the answer leaves, and survives a crash of the
 * service; only an OS crash or power loss before the next fsync (the next booking's commit, or a checkpoint) can
 * lose it, and then the client simply asks again. Every other commit keeps the connection's setting (FULL).
 */
export class SqliteNetworkQuoteRepository implements NetworkQuoteRepository {
  /** The connection's synchronous setting (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA) and whether it is in WAL mode. */
  private readonly synchronous: number;
  private readonly wal: boolean;

  constructor(private readonly db: Db) {
    const client = db.$client;
    this.synchronous = client.query<{ synchronous: number }, []>("PRAGMA synchronous").get()?.synchronous ?? 2;
    this.wal = client.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode === "wal";
  }

  async save(quote: NetworkQuote, bytes: number): Promise<void> {
    const row = networkQuoteRow(quote);
    const client = this.db.$client;
    // Synchronous from here to the restore: nothing else runs on this connection meanwhile.
    const relax = this.wal && this.synchronous > 1 && !client.inTransaction;
    if (relax) client.exec("PRAGMA synchronous = NORMAL");
    try {
      // The quote and its bytes counted to its maker, in one transaction.
      client.transaction(() => {
        this.db.insert(networkQuotes).values(row).run();
        this.db
          .insert(networkQuoteUsage)
          .values({ netid: row.makerNetid, bucket: bucketOf(quote.createdAt), bytes })
          .onConflictDoUpdate({ target: [networkQuoteUsage.netid, networkQuoteUsage.bucket], set: { bytes: sql`${networkQuoteUsage.bytes} + excluded.bytes` } })
          .run();
      })();
    } finally {
      if (relax) client.exec(`PRAGMA synchronous = ${this.synchronous}`);
    }
  }

  /** Whether this connection commits quotes without an fsync (WAL mode with a synchronous setting above NORMAL). */
  get relaxedCommit(): boolean {
    return this.wal && this.synchronous > 1;
  }

  /** Keeps the quote longer and moves its bytes to the hour they now count in, in one transaction (usageMoveOf). */
  async keepUntil(quoteId: string, until: number): Promise<void> {
    // IMMEDIATE: the write lock from the read on, so two bookings of one quote cannot both move its bytes.
    this.db.$client
      .transaction(() => {
        const row = this.db.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).get();
        if (!row || row.keptUntil >= until) return;
        this.db.update(networkQuotes).set({ keptUntil: until }).where(eq(networkQuotes.quoteId, quoteId)).run();
        const move = usageMoveOf(row, until);
        if (!move) return;
        const { netid, from, to, bytes } = move;
        const usage = networkQuoteUsage;
        this.db
          .update(usage)
          .set({ bytes: sql`${usage.bytes} - ${bytes}` })
          .where(and(eq(usage.netid, netid), eq(usage.bucket, from)))
          .run();
        this.db
          .insert(usage)
          .values({ netid, bucket: to, bytes })
          .onConflictDoUpdate({ target: [usage.netid, usage.bucket], set: { bytes: sql`${usage.bytes} + excluded.bytes` } })
          .run();
      })
      .immediate();
  }

  async countSince(makerNetid: string, sinceSeconds: number): Promise<number> {
    const where = and(eq(networkQuotes.makerNetid, makerNetid), gte(networkQuotes.createdAt, sinceSeconds));
    return this.db.select({ n: count() }).from(networkQuotes).where(where).get()?.n ?? 0;
  }

  async keptSince(makerNetid: string, sinceSeconds: number): Promise<{ bytes: number; since?: number }> {
    const query = this.db.$client.query<{ bytes: number; first: number | null }, [string, number]>(keptQuoteBytesSql((n) => `?${n}`));
    return keptQuoteBytesOf(query.get(makerNetid, bucketOf(sinceSeconds)) ?? undefined);
  }

  async find(quoteId: string): Promise<NetworkQuote | undefined> {
    const row = this.db.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).get();
    return row ? networkQuoteOf(row) : undefined;
  }
}
