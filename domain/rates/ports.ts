import type { RateCard } from "./card";

/** A stored rate card and when it was last replaced (Unix seconds). */
export interface StoredRateCard {
  card: RateCard;
  updatedAt: number;
}

/** Providers' rate cards (CONTRACT §19.1). */
export interface RateCardRepository {
  get(netid: string): Promise<StoredRateCard | undefined>;
  /** The cards of these providers (those that have one); a network quote asks for many at once. */
  getMany(netids: readonly string[]): Promise<Map<string, StoredRateCard>>;
  /** Replaces the provider's whole card. */
  put(netid: string, card: RateCard, at: number): Promise<void>;
  /** Removes the card; false when there was none. */
  delete(netid: string): Promise<boolean>;
}
