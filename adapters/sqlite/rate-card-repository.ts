import { eq } from "drizzle-orm";
import type { RateCard } from "../../domain/pricing/card";
import type { RateCardRepository, StoredRateCard } from "../../domain/pricing/ports";
import { AccountCache } from "./account-cache";
import { preparedByKey, type Db } from "./db";
import { rateCards } from "./schema";

/** Cards kept before the copy starts over (a network quote reads hundreds at once). */
const RATE_CARD_CACHE_LIMIT = 50_000;

/**
 * Rate cards in SQLite. The cards read are kept in memory (null: none) in the connection's account cache, and each
 * put or delete here updates that copy at once: a quote reads no row for a card it has seen. A card put or removed by
 * another process (the CLI `rates import` while `serve` runs) empties the copy, as any account change does
 * (AccountCache: `PRAGMA data_version` and the account stamp, which rate_cards keeps since migration 0033).
 */
export class SqliteRateCardRepository implements RateCardRepository {
  private readonly byNetid;

  constructor(private readonly db: Db) {
    this.byNetid = preparedByKey(db, rateCards, rateCards.netid, "netid");
  }

  private read(cache: Map<string, StoredRateCard | null>, netid: string): StoredRateCard | null {
    let stored = cache.get(netid);
    if (stored !== undefined) return stored;
    const row = this.byNetid.get({ netid });
    stored = row ? { card: JSON.parse(row.card) as RateCard, updatedAt: row.updatedAt } : null;
    if (cache.size > RATE_CARD_CACHE_LIMIT) cache.clear();
    cache.set(netid, stored);
    return stored;
  }

  private get cache(): Map<string, StoredRateCard | null> {
    return AccountCache.of(this.db).fresh().rateCards;
  }

  async get(netid: string): Promise<StoredRateCard | undefined> {
    return this.read(this.cache, netid) ?? undefined;
  }

  async getMany(netids: readonly string[]): Promise<Map<string, StoredRateCard>> {
    const out = new Map<string, StoredRateCard>();
    const cache = this.cache;
    for (const netid of netids) {
      const stored = this.read(cache, netid);
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
    AccountCache.of(this.db).rateCards.set(netid, { card, updatedAt: at });
  }

  async delete(netid: string): Promise<boolean> {
    const removed = this.db.delete(rateCards).where(eq(rateCards.netid, netid)).returning({ netid: rateCards.netid }).all();
    AccountCache.of(this.db).rateCards.set(netid, null);
    return removed.length > 0;
  }
}
