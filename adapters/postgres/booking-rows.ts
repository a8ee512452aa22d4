import type { bookings } from "./schema";
import { JSON_MEMBERS } from "../../domain/trips/booking-record";

// A booking's row, stored as domain/trips/booking-record.ts says (the same strings as on SQLite).

export type BookingRow = typeof bookings.$inferSelect;
export { toBooking, toRow } from "../../domain/trips/booking-record";

/** The columns an update may change (the rest are fixed when the booking is created). */
export function mutableValues(row: BookingRow): Omit<BookingRow, "transactionId" | "requesterId" | "requesterResNo" | "submitDate" | "userid"> {
  const { transactionId: _t, requesterId: _r, requesterResNo: _n, submitDate: _s, userid: _u, ...rest } = row;
  return rest;
}

/**
 * The columns an update writes: the mutable ones, less a JSON member the change left as it was. PostgreSQL then
 * keeps that member's stored value, TOAST chunks included, in the new row version instead of writing a copy (a
 * status change of a booking with a large trip writes a few hundred bytes, not the trip again).
 */
export function changedValues(next: BookingRow, before: BookingRow): Partial<BookingRow> {
  const values: Partial<BookingRow> = mutableValues(next);
  for (const key of JSON_MEMBERS) if (next[key] === before[key]) delete values[key];
  return values;
}
