import { and, eq, or, type Column, type SQL } from "drizzle-orm";
import type { Partnership, PartnershipState, VehicleTypeMap } from "../../domain/partners/partnership";

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
  return or(oneWay(t, a, b), oneWay(t, b, a));
}

/** The vehicle-type map `provider` set for `requester` (one way round). */
export function oneWay(t: { providerNetid: Column; requesterNetid: Column }, provider: string, requester: string): SQL | undefined {
  return and(eq(t.providerNetid, provider), eq(t.requesterNetid, requester));
}

/** The rows that store the vehicle-type map `provider` set for `requester`, one per requester's type. */
export function vehicleTypeRows(provider: string, requester: string, map: VehicleTypeMap) {
  return Object.entries(map).map(([requesterType, providerType]) => ({ providerNetid: provider, requesterNetid: requester, requesterType, providerType }));
}
