import type { RecordBooking } from "../../domain/partners/provider-record";

/** How each dialect writes the parts of the record's query that differ. */
export interface RecordDialect {
  /** The condition on a provider_id column naming the providers asked (`IN (?1, ?2)`, `= ANY($1::text[])`). */
  providers: string;
  /** The placeholder of the window's start. */
  since: string;
  /** The booking's offers (JSON text) from its trip_packet column. */
  offers: (packet: string) => string;
  /** The chauffeur's arrival by positions (the clock's `arrivedAt`, an ISO instant) from its trip_packet column. */
  arrivedAt: (packet: string) => string;
}

/** A row of recordBookingsSql: the arrival as stored (an ISO instant), or null. */
export type RecordRow = Omit<RecordBooking, "arrivedAt"> & { arrivedAt: string | null };

/** The booking the record reads from a row of recordBookingsSql: the arrival in Unix seconds, when positions told it. */
export function recordBooking(row: RecordRow): RecordBooking {
  const { arrivedAt, ...rest } = row;
  const ms = arrivedAt === null ? Number.NaN : Date.parse(arrivedAt);
  return Number.isFinite(ms) ? { ...rest, arrivedAt: Math.floor(ms / 1000) } : rest;
}

const COLUMNS =
  'b.transaction_id AS "transactionId", b.provider_id AS "providerId", b.requester_id AS "requesterId", b.status, ' +
  'b.submit_date AS "submitDate", b.pickup_date AS "pickupDate", b.change_logs AS "changeLogs"';

/**
 * The bookings a provider record reads (docs/terms.md#provider-record), both dialects: those sent since the window's
 * start whose current provider is asked (their offers read only when they were moved, which earlier_offers tells),
 * then those the cascade moved on from one asked (earlier_offers); quotes are not bookings. Both parts go through
 * the provider_id indexes; a booking in both is read twice and counted once.
 */
export function recordBookingsSql(d: RecordDialect): string {
  const moved = "EXISTS (SELECT 1 FROM earlier_offers m WHERE m.transaction_id = b.transaction_id)";
  // On time is measured from the arrival by positions where they tell it (docs/terms.md#provider-record).
  const columns = `${COLUMNS}, ${d.arrivedAt("b.trip_packet")} AS "arrivedAt"`;
  return (
    `SELECT ${columns}, CASE WHEN ${moved} THEN ${d.offers("b.trip_packet")} END AS offers FROM bookings b ` +
    `WHERE b.provider_id ${d.providers} AND b.submit_date >= ${d.since} AND b.reservation_type <> 'QUOTE' ` +
    `UNION ALL SELECT ${columns}, ${d.offers("b.trip_packet")} AS offers FROM earlier_offers e ` +
    `JOIN bookings b ON b.transaction_id = e.transaction_id ` +
    `WHERE e.provider_id ${d.providers} AND e.submit_date >= ${d.since} AND b.reservation_type <> 'QUOTE'`
  );
}
