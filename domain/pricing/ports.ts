import type { FleetEntry } from "../fleet/entry";
import type { RateCard } from "./card";
import type { NetworkQuote } from "./network-quote";

/** A stored rate card and when it was last replaced (Unix seconds). */
export interface StoredRateCard {
  card: RateCard;
  updatedAt: number;
}

/** Providers' rate cards (docs/rates.md#setting-the-card). */
export interface RateCardRepository {
  get(netid: string): Promise<StoredRateCard | undefined>;
  /** The cards of these providers (those that have one); a network quote asks for many at once. */
  getMany(netids: readonly string[]): Promise<Map<string, StoredRateCard>>;
  /** Replaces the provider's whole card. */
  put(netid: string, card: RateCard, at: number): Promise<void>;
  /** Removes the card; false when there was none. */
  delete(netid: string): Promise<boolean>;
}

/** Where network quotes are kept for their validity (and pruned by the retention some time after it). */
export interface NetworkQuoteRepository {
  /** Stores the quote and counts its `bytes` to its maker's kept bytes, in one transaction. */
  save(quote: NetworkQuote, bytes: number): Promise<void>;
  /** The quote with this id, whoever made it (the use case decides who may see it); undefined when unknown. */
  find(quoteId: string): Promise<NetworkQuote | undefined>;
  /**
   * Keeps the quote at least until `until` (Unix seconds) — never shorter than it was kept — while a booking made from
   * it may still move to another of its options (docs/terms.md#deadlines-within-the-trip); its bytes count in
   * keptSince as long (docs/security.md#per-company-store-bounds).
   */
  keepUntil(quoteId: string, until: number): Promise<void>;
  /** How many quotes the company (its netid as stored) made since a time (Unix seconds): its per-hour bound. */
  countSince(makerNetid: string, sinceSeconds: number): Promise<number>;
  /**
   * The bytes of the quotes the company made since a time, and of those it made earlier that are kept longer (counted
   * per hour: from the hour holding `sinceSeconds`), and when the earliest counted hour began (absent: none): its
   * kept-bytes bound.
   */
  keptSince(makerNetid: string, sinceSeconds: number): Promise<{ bytes: number; since?: number }>;
}

/** The provider's fleet as quotes see it. */
export interface ProviderFleet {
  /** The provider's active fleet entries. */
  activeEntries(netid: string): Promise<FleetEntry[]>;
  /** The provider's active entries among `slugs` (others' and inactive ones left out), in no particular order. */
  activeEntriesBySlug(netid: string, slugs: readonly string[]): Promise<FleetEntry[]>;
  /** The active entries among `slugs`, whoever owns them, in no particular order (one read for a network quote's candidates). */
  activeEntriesAmong(slugs: readonly string[]): Promise<FleetEntry[]>;
  /** The provider's active entries that list airport `iata` (upper-case), read by airport (not by scanning the fleet). */
  activeEntriesListing(netid: string, iata: string): Promise<FleetEntry[]>;
  /**
   * Those of activeEntriesListing that a circle search around `centre` cannot find: without a position, or standing
   * farther than `radiusKm` from it (a metre's slack: one just inside may be among them too). Read through the
   * per-airport positions, so entries within the circle cost an index entry each, not a row.
   */
  activeEntriesListingBeyond(netid: string, iata: string, centre: { lat: number; lon: number }, radiusKm: number): Promise<FleetEntry[]>;
}
