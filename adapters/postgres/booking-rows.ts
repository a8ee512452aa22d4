import type { bookings } from "./schema";

// A booking's row, stored as domain/trips/booking-record.ts says (the same strings as on SQLite).

export type BookingRow = typeof bookings.$inferSelect;
export { toBooking, toRow } from "../../domain/trips/booking-record";

/** The columns an update may change (the rest are fixed when the booking is created). */
export function mutableValues(row: BookingRow): Omit<BookingRow, "transactionId" | "requesterId" | "requesterResNo" | "submitDate" | "userid"> {
  const { transactionId: _t, requesterId: _r, requesterResNo: _n, submitDate: _s, userid: _u, ...rest } = row;
  return rest;
}
