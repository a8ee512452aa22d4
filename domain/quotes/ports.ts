import type { NetworkQuote } from "./network-quote";

/** Where network quotes are kept for their validity (and pruned by the retention some time after it). */
export interface NetworkQuoteRepository {
  save(quote: NetworkQuote): Promise<void>;
  /** The quote with this id, whoever made it (the use case decides who may see it); undefined when unknown. */
  find(quoteId: string): Promise<NetworkQuote | undefined>;
  /** How many quotes the company (its netid as stored) made since a time (Unix seconds): its per-hour bound. */
  countSince(makerNetid: string, sinceSeconds: number): Promise<number>;
}
