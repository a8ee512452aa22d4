import { eq } from "drizzle-orm";
import type { RateCard } from "../../domain/rates/card";
import type { RateCardRepository, StoredRateCard } from "../../domain/rates/ports";
import { preparedByKey, type Db } from "./db";
import { rateCards } from "./schema";

/**
 * Rate cards in SQLite. One process serves the file, so the cards read are kept in memory (null: none) and each
 * put or delete here updates that copy at once: a quote reads no row for a card it has seen.
 */
export class SqliteRateCardRepository implements RateCardRepository {
  private readonly cache = new Map<string, StoredRateCard | null>();
  private readonly byNetid;

  constructor(private readonly db: Db) {
    this.byNetid = preparedByKey(db, rateCards, rateCards.netid, "netid");
  }

  private read(netid: string): StoredRateCard | null {
    let stored = this.cache.get(netid);
    if (stored !== undefined) return stored;
    const row = this.byNetid.get({ netid });
    stored = row ? { card: JSON.parse(row.card) as RateCard, updatedAt: row.updatedAt } : null;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(netid, stored);
    return stored;
  }

  async get(netid: string): Promise<StoredRateCard | undefined> {
    return this.read(netid) ?? undefined;
  }

  async getMany(netids: readonly string[]): Promise<Map<string, StoredRateCard>> {
    const out = new Map<string, StoredRateCard>();
    for (const netid of netids) {
      const stored = this.read(netid);
      if (stored) out.set(netid, stored);
    }
    return out;
  }

  async put(netid: string, card: RateCard, at: number): Promise<void> {
    const text = JSON.stringify(card);
    this.db
      .insert(rateCards)
      .values({ netid, card: text, updatedAt: at })
      .onConflictDoUpdate({ target: rateCards.netid, set: { card: text, updatedAt: at } })
      .run();
    this.cache.set(netid, { card, updatedAt: at });
  }

  async delete(netid: string): Promise<boolean> {
    const removed = this.db.delete(rateCards).where(eq(rateCards.netid, netid)).returning({ netid: rateCards.netid }).all();
    this.cache.set(netid, null);
    return removed.length > 0;
  }
}
