import { and, eq, gte, lte, or, type Column, type SQL } from "drizzle-orm";
import type { BookingListQuery } from "../../domain/trips/ports";

/** The bookings table's columns a list filters on, as either database's schema names them. */
export interface BookingListColumns {
  requesterId: Column;
  providerId: Column;
  status: Column;
  requesterResNo: Column;
  pickupDate: Column;
}

/** Which bookings a list query selects: the company's side (or both), its status, requesterResNo, requester and pickup range. */
export function bookingListWhere(t: BookingListColumns, q: BookingListQuery): SQL | undefined {
  const party =
    q.role === "requester"
      ? eq(t.requesterId, q.netid)
      : q.role === "provider"
        ? eq(t.providerId, q.netid)
        : or(eq(t.requesterId, q.netid), eq(t.providerId, q.netid));
  const filters: SQL[] = [party!];
  if (q.status) filters.push(eq(t.status, q.status));
  if (q.requesterResNo) filters.push(eq(t.requesterResNo, q.requesterResNo));
  if (q.requesterId) filters.push(eq(t.requesterId, q.requesterId));
  if (q.pickupFrom !== undefined) filters.push(gte(t.pickupDate, q.pickupFrom));
  if (q.pickupTo !== undefined) filters.push(lte(t.pickupDate, q.pickupTo));
  return and(...filters);
}

/** The bookings table's columns a list item shows, besides the pickup (each database reads that out of the JSON). */
const SUMMARY_KEYS = [
  ...["transactionId", "requesterId", "providerId", "requesterResNo", "providerResNo"],
  ...["status", "submitDate", "pickupDate", "reservationType"],
] as const;
type SummaryKey = (typeof SUMMARY_KEYS)[number];

/** The columns of a list item, as either database's schema names them (for `select`). */
export function bookingSummaryColumns<T extends Record<SummaryKey, Column>>(t: T): Pick<T, SummaryKey> {
  return Object.fromEntries(SUMMARY_KEYS.map((k) => [k, t[k]])) as Pick<T, SummaryKey>;
}
