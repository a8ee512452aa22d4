import { createHash } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import type { RateCard } from "../../domain/pricing/card";
import type { RateCardRepository, StoredRateCard } from "../../domain/pricing/ports";
import type { PgDb } from "./db";
import { rateCards } from "./schema";

/** How long a card read is trusted before it is read again (another instance may have replaced it). */
const KEEP_MS = 1_000;

/** A card's text fingerprint, as PostgreSQL computes it of the stored text (cardHash) and as a put computes it. */
const cardHash = sql<string>`encode(sha256(convert_to(${rateCards.card}, 'UTF8')), 'hex')`;
const hashOf = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Rate cards in PostgreSQL. Cards read are kept for a second (null: none), so a network quote over hundreds of
 * providers reads them once a second, not once a quote; a put or delete on this instance updates its copy at once,
 * and every other instance sees it within a second. A second's re-read asks each card's fingerprint first and
 * fetches only the cards whose text changed: an unchanged card stays the same object, so it is neither sent again
 * nor parsed and compiled again (a network quote compiles each card it meets once per object).
 */
export class PgRateCardRepository implements RateCardRepository {
  private readonly cache = new Map<string, { stored: StoredRateCard | null; at: number; hash?: string }>();

  constructor(
    private readonly db: PgDb,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async get(netid: string): Promise<StoredRateCard | undefined> {
    return (await this.getMany([netid])).get(netid);
  }

  async getMany(netids: readonly string[]): Promise<Map<string, StoredRateCard>> {
    const now = this.nowMs();
    const out = new Map<string, StoredRateCard>();
    const missing: string[] = [];
    for (const netid of netids) {
      const hit = this.cache.get(netid);
      if (hit && now - hit.at < KEEP_MS) {
        if (hit.stored) out.set(netid, hit.stored);
      } else missing.push(netid);
    }
    if (missing.length === 0) return out;
    const heads = await this.db
      .select({ netid: rateCards.netid, updatedAt: rateCards.updatedAt, hash: cardHash })
      .from(rateCards)
      .where(inArray(rateCards.netid, missing));
    const unchanged: Array<{ netid: string; stored: StoredRateCard; hash: string }> = [];
    const changed: string[] = [];
    for (const head of heads) {
      const hit = this.cache.get(head.netid);
      const same = hit?.stored && hit.hash === head.hash && hit.stored.updatedAt === head.updatedAt;
      if (same) unchanged.push({ netid: head.netid, stored: hit.stored!, hash: head.hash });
      else changed.push(head.netid);
    }
    const rows =
      changed.length > 0
        ? await this.db
            .select({ netid: rateCards.netid, card: rateCards.card, updatedAt: rateCards.updatedAt, hash: cardHash })
            .from(rateCards)
            .where(inArray(rateCards.netid, changed))
        : [];
    if (this.cache.size > 50_000) this.cache.clear();
    for (const netid of missing) this.cache.set(netid, { stored: null, at: now });
    for (const { netid, stored, hash } of unchanged) {
      this.cache.set(netid, { stored, at: now, hash });
      out.set(netid, stored);
    }
    for (const row of rows) {
      const stored = { card: JSON.parse(row.card) as RateCard, updatedAt: row.updatedAt };
      this.cache.set(row.netid, { stored, at: now, hash: row.hash });
      out.set(row.netid, stored);
    }
    return out;
  }

  async put(netid: string, card: RateCard, at: number): Promise<void> {
    const text = JSON.stringify(card);
    await this.db
      .insert(rateCards)
      .values({ netid, card: text, updatedAt: at })
      .onConflictDoUpdate({ target: rateCards.netid, set: { card: text, updatedAt: at } });
    this.cache.set(netid, { stored: { card, updatedAt: at }, at: this.nowMs(), hash: hashOf(text) });
  }

  async delete(netid: string): Promise<boolean> {
    const rows = await this.db.delete(rateCards).where(eq(rateCards.netid, netid)).returning({ netid: rateCards.netid });
    this.cache.set(netid, { stored: null, at: this.nowMs() });
    return rows.length > 0;
  }
}
