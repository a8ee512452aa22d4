import { eq } from "drizzle-orm";
import type { NetworkQuoteRepository } from "../../domain/quotes/ports";
import type { NetworkQuote } from "../../domain/quotes/network-quote";
import type { PgDb } from "./db";
import { networkQuotes } from "./schema";
import { networkQuoteOf, networkQuoteRow } from "../network-quote-rows";

/** Network quotes in PostgreSQL: one row each, written once, read by any instance. */
export class PgNetworkQuoteRepository implements NetworkQuoteRepository {
  constructor(private readonly db: PgDb) {}

  async save(quote: NetworkQuote): Promise<void> {
    await this.db.insert(networkQuotes).values(networkQuoteRow(quote));
  }

  async find(quoteId: string): Promise<NetworkQuote | undefined> {
    const [row] = await this.db.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).limit(1);
    return row ? networkQuoteOf(row) : undefined;
  }
}
