import type { NetworkQuote } from "../../domain/pricing/network-quote";

/** A network quote's row, the same in both databases: the columns lookups and retention need, the rest one JSON text. */
export interface NetworkQuoteRow {
  quoteId: string;
  makerNetid: string;
  makerUid: string;
  createdAt: number;
  validUntil: number;
  /** Kept at least until then: its validity, later while a booking of it may still move (docs/terms.md#deadlines-within-the-trip). */
  keptUntil: number;
  body: string;
}

export function networkQuoteRow(q: NetworkQuote): NetworkQuoteRow {
  const { quoteId, makerNetid, makerUid, createdAt, validUntil, ...rest } = q;
  return { quoteId, makerNetid, makerUid, createdAt, validUntil, keptUntil: validUntil, body: JSON.stringify(rest) };
}

export function networkQuoteOf(row: Omit<NetworkQuoteRow, "keptUntil">): NetworkQuote {
  const rest = JSON.parse(row.body) as Omit<NetworkQuote, "quoteId" | "makerNetid" | "makerUid" | "createdAt" | "validUntil">;
  return { quoteId: row.quoteId, makerNetid: row.makerNetid, makerUid: row.makerUid, createdAt: row.createdAt, validUntil: row.validUntil, ...rest };
}
