import { getTableColumns } from "drizzle-orm";
import type { SQLQueryBindings } from "bun:sqlite";
import { bookings } from "./schema";
import { SqliteOutbox } from "./outbox";
import { SqliteLiveEventLog } from "./live-event-log";
import { holdSwapArgs, holdSwapSql } from "../sql/hold-sql";
import { recoveryArgs, recoverySql } from "../sql/recovery-sql";
import type { BookingWrite } from "../../domain/trips/decision";
import type { WriteStep } from "./booking-writer-thread";

// A booking's row (stored as domain/trips/booking-record.ts says), and the statements that write it, shared by the
// service's connection and the booking writer's.

export type BookingRow = typeof bookings.$inferSelect;
export { toBooking, toRow } from "../../domain/trips/booking-record";

/** The statements the booking writer runs, by index (see BookingWriter). */
export const BOOKING_COLUMNS = Object.entries(getTableColumns(bookings));
const IMMUTABLE = new Set(["transactionId", "requesterId", "requesterResNo", "submitDate", "userid"]);
const MUTABLE_COLUMNS = BOOKING_COLUMNS.filter(([key]) => !IMMUTABLE.has(key));
const INSERTED = BOOKING_COLUMNS.map(([, c]) => `"${c.name}"`);
export const INSERT_BOOKING_SQL = `INSERT INTO bookings (${INSERTED.join(", ")}) VALUES (${INSERTED.map(() => "?").join(", ")})`;
const UPDATED = MUTABLE_COLUMNS.map(([, c]) => `"${c.name}" = ?`);
export const UPDATE_BOOKING_SQL = `UPDATE bookings SET ${UPDATED.join(", ")} WHERE transaction_id = ? AND version = ?`;
/** INSERT_BOOKING_SQL's arguments for a booking's record. */
export function insertArgs(record: BookingRow): SQLQueryBindings[] {
  return BOOKING_COLUMNS.map(([key]) => record[key as keyof BookingRow]);
}
/** UPDATE_BOOKING_SQL's arguments: the record's mutable columns, for the row still at `previousVersion`. */
export function updateArgs(record: BookingRow, previousVersion: number): SQLQueryBindings[] {
  return [...MUTABLE_COLUMNS.map(([key]) => record[key as keyof BookingRow]), record.transactionId, previousVersion];
}
export const [INSERT_BOOKING, UPDATE_BOOKING, INSERT_OUTBOX, INSERT_LIVE_EVENT, INSERT_LIVE_BODY] = [0, 1, 2, 3, 4];
/** A cascade move's hold swap (docs/terms.md#the-cascade-fallback), in the booking's transaction. */
export const HOLD_SWAP = holdSwapSql((n) => `?${n}`);
export const [REMOVE_HOLD, INSERT_HOLD_IF_FREE] = [5, 6];
/** The booking writer's steps of a hold swap: the booking's hold replaced, or the change fails (HOLD_TAKEN). */
export function holdSwapSteps(hold: NonNullable<BookingWrite["hold"]>): WriteStep[] {
  return [
    { statement: REMOVE_HOLD, args: [hold.transactionId] },
    { statement: INSERT_HOLD_IF_FREE, args: [...holdSwapArgs(hold)], mustChange: "hold" },
  ];
}
/** A give-back's cost recovery (docs/settlement.md#give-back-recovery), in the booking's transaction. */
export const INSERT_RECOVERY_SQL = recoverySql((n) => `?${n}`).insert;
export const INSERT_RECOVERY = 7;
/** The booking writer's step that stores a cost recovery (SQLite keeps booleans as 0/1). */
export function recoveryStep(r: NonNullable<BookingWrite["recovery"]>): WriteStep {
  return { statement: INSERT_RECOVERY, args: [...recoveryArgs(r, (w) => (w ? 1 : 0))] };
}
export const BOOKING_WRITER_STATEMENTS = [
  INSERT_BOOKING_SQL,
  UPDATE_BOOKING_SQL,
  SqliteOutbox.INSERT_SQL,
  SqliteLiveEventLog.INSERT_SQL,
  SqliteLiveEventLog.BODY_SQL,
  HOLD_SWAP.remove,
  HOLD_SWAP.insert,
  INSERT_RECOVERY_SQL,
];
