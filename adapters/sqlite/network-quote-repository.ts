import { eq } from "drizzle-orm";
import type { NetworkQuoteRepository } from "../../domain/quotes/ports";
import type { NetworkQuote } from "../../domain/quotes/network-quote";
import type { Db } from "./db";
import { networkQuotes } from "./schema";
import { networkQuoteOf, networkQuoteRow } from "../network-quote-rows";

/** Network quotes in SQLite: one row each, written once. */
export class SqliteNetworkQuoteRepository implements NetworkQuoteRepository {
  constructor(private readonly db: Db) {}

  async save(quote: NetworkQuote): Promise<void> {
    this.db.insert(networkQuotes).values(networkQuoteRow(quote)).run();
  }

  async find(quoteId: string): Promise<NetworkQuote | undefined> {
    const row = this.db.select().from(networkQuotes).where(eq(networkQuotes.quoteId, quoteId)).get();
    return row ? networkQuoteOf(row) : undefined;
  }
}
