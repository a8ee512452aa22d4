import type { Statement } from "bun:sqlite";
import { and, eq, sql } from "drizzle-orm";
import type { NetworkQuoteRepository } from "../../domain/pricing/ports";
import type { NetworkQuote } from "../../domain/pricing/network-quote";
import type { Db } from "./db";
import { networkQuotes, networkQuoteUsage } from "./schema";
import { bucketOf, keptQuoteBytesOf, keptQuoteBytesSql, networkQuoteOf, networkQuoteRow, usageMoveOf, type NetworkQuoteRow } from "../sql/network-quote-rows";

interface QuoteStatements {
  save: (row: NetworkQuoteRow, bytes: number) => void;
  countSince: Statement<{ n: number }, [string, number]>;
  /** A quote by id: the offer watch looks one up for every cascade move. */
  byId: Statement<Omit<NetworkQuoteRow, "keptUntil">, [string]>;
}

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
  private prepared: QuoteStatements | undefined;

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
      this.statements().save(row, bytes);
    } finally {
      if (relax) client.exec(`PRAGMA synchronous = ${this.synchronous}`);
    }
  }

  /**
   * The quote and its bytes counted to its maker, in one transaction: statements prepared once (the quote path is hot:
   * building them with the query builder on every quote cost more than running them). Prepared on first use, once
   * the migrations have made the tables.
   */
  private statements(): QuoteStatements {
    if (this.prepared) return this.prepared;
    const client = this.db.$client;
    const insertQuote = client.prepare<unknown, [string, string, string, number, number, number, string]>(
      "INSERT INTO network_quotes (quote_id, maker_netid, maker_uid, created_at, valid_until, kept_until, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    );
    const countBytes = client.prepare<unknown, [string, number, number]>(
      "INSERT INTO network_quote_usage (netid, bucket, bytes) VALUES (?1, ?2, ?3) ON CONFLICT (netid, bucket) DO UPDATE SET bytes = bytes + excluded.bytes",
    );
    const save = client.transaction((row: NetworkQuoteRow, bytes: number) => {
      insertQuote.run(row.quoteId, row.makerNetid, row.makerUid, row.createdAt, row.validUntil, row.keptUntil, row.body);
      countBytes.run(row.makerNetid, bucketOf(row.createdAt), bytes);
    });
    const countSince = client.prepare<{ n: number }, [string, number]>("SELECT count(*) AS n FROM network_quotes WHERE maker_netid = ?1 AND created_at >= ?2");
    const byId = client.prepare<Omit<NetworkQuoteRow, "keptUntil">, [string]>(
      'SELECT quote_id AS "quoteId", maker_netid AS "makerNetid", maker_uid AS "makerUid", created_at AS "createdAt", ' +
        'valid_until AS "validUntil", body FROM network_quotes WHERE quote_id = ?1',
    );
    return (this.prepared = { save, countSince, byId });
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
    return this.statements().countSince.get(makerNetid, sinceSeconds)?.n ?? 0;
  }

  async keptSince(makerNetid: string, sinceSeconds: number): Promise<{ bytes: number; since?: number }> {
    const query = this.db.$client.query<{ bytes: number; first: number | null }, [string, number]>(keptQuoteBytesSql((n) => `?${n}`));
    return keptQuoteBytesOf(query.get(makerNetid, bucketOf(sinceSeconds)) ?? undefined);
  }

  async find(quoteId: string): Promise<NetworkQuote | undefined> {
    const row = this.statements().byId.get(quoteId);
    return row ? networkQuoteOf(row) : undefined;
  }
}
