import { and, eq, or, type Column, type SQL } from "drizzle-orm";
import type { Partnership, PartnershipState } from "../domain/partners/partnership";

/** A partnership's row, the same in both databases: the pair stored once, under `partnershipPair`'s order. */
export interface PartnershipRow {
  companyA: string;
  companyB: string;
  requestedBy: string;
  status: string;
  createdAt: number;
  acceptedAt: number | null;
}

/** A pair's key: the two netids ordered by their lower-case form, so either side finds the same row. */
export function partnershipPair(a: string, b: string): [string, string] {
  return a.toLowerCase() <= b.toLowerCase() ? [a, b] : [b, a];
}

export const toPartnership = (row: PartnershipRow): Partnership => ({
  companies: [row.companyA, row.companyB],
  requestedBy: row.requestedBy,
  state: row.status as PartnershipState,
  createdAt: row.createdAt,
  acceptedAt: row.acceptedAt,
});

/** The vehicle-type maps the two companies set for each other, either way round (they go with the partnership). */
export function bothWays(t: { providerNetid: Column; requesterNetid: Column }, a: string, b: string): SQL | undefined {
  return or(and(eq(t.providerNetid, a), eq(t.requesterNetid, b)), and(eq(t.providerNetid, b), eq(t.requesterNetid, a)));
}
