import { NETWORK_QUOTE_VALIDITY_SECONDS, type NetworkQuote } from "../../domain/pricing/network-quote";
import { utf8Bytes } from "../../domain/events/store-bounds";

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

/**
 * The kept bytes are counted per company and hour (network_quote_usage.bucket = that hour's start / this): the hour
 * of making, or for a quote kept past its validity the hour it counts from (usageBucketOf).
 */
export const QUOTE_USAGE_BUCKET_SECONDS = 3600;

/**
 * A company's kept bytes from the hour holding a time on (up to an hour more than the exact window: the bound errs
 * towards refusing), and the earliest of those hours (`p(n)`: netid, then the first hour).
 */
export function keptQuoteBytesSql(p: (n: number) => string): string {
  return `SELECT coalesce(sum(bytes), 0) AS bytes, min(bucket) AS first FROM network_quote_usage WHERE netid = ${p(1)} AND bucket >= ${p(2)}`;
}

/** keptQuoteBytesSql's row as the port answers it: the bytes, and when the earliest counted hour began (Unix seconds). */
export function keptQuoteBytesOf(row: { bytes: number | string; first: number | string | null } | undefined): { bytes: number; since?: number } {
  const first = row?.first;
  return { bytes: Number(row?.bytes ?? 0), ...(first !== null && first !== undefined ? { since: Number(first) * QUOTE_USAGE_BUCKET_SECONDS } : {}) };
}

export const bucketOf = (seconds: number) => Math.floor(seconds / QUOTE_USAGE_BUCKET_SECONDS);

/**
 * The hour a quote kept until `keptUntil` is counted in: its hour of making (kept_until starts at its validity's end),
 * moved on as a booking keeps it longer, so its bytes are counted, and pruned, as long as the quote is kept
 * (docs/security.md#per-company-store-bounds).
 */
export const usageBucketOf = (keptUntil: number) => bucketOf(keptUntil - NETWORK_QUOTE_VALIDITY_SECONDS);

/** A quote's bytes moving from one hour's count to another's as it is kept longer. */
export interface UsageMove {
  netid: string;
  from: number;
  to: number;
  bytes: number;
}

/**
 * What keeping the stored quote `row` until `until` moves: undefined when its hour stays (or it is kept that long
 * already). Its bytes are the use case's count as it stored the quote (its JSON, UTF-8).
 */
export function usageMoveOf(row: NetworkQuoteRow, until: number): UsageMove | undefined {
  const from = usageBucketOf(Math.max(row.keptUntil, row.validUntil));
  const to = usageBucketOf(until);
  if (to <= from) return undefined;
  return { netid: row.makerNetid, from, to, bytes: utf8Bytes(JSON.stringify(networkQuoteOf(row))) };
}
