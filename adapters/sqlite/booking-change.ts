import type { Statement } from "bun:sqlite";
import type { Booking } from "../../domain/trips/booking";
import type { BookingWrite, ChangeAnnouncer } from "../../domain/trips/ports";
import { replacedBytes } from "../../domain/trips/booking-record";
import { providerResNoInUse } from "../../domain/trips/provider-update";
import { HOLD_TAKEN, holdTaken } from "../sql/hold-sql";
import { PROVIDER_RES_NO_TAKEN } from "./unique-keys";
import { SqliteOutbox } from "./outbox";
import { SqliteLiveEventLog } from "./live-event-log";
import type { WriteStep } from "./booking-writer";
import {
  holdSwapSteps,
  INSERT_BOOKING,
  INSERT_LIVE_BODY,
  INSERT_LIVE_EVENT,
  INSERT_OUTBOX,
  insertArgs,
  recoveryStep,
  toRow,
  UPDATE_BOOKING,
  updateArgs,
  type BookingRow,
} from "./booking-rows";

/**
 * What one decided booking change writes, as statements of BOOKING_WRITER_STATEMENTS in order: first the booking (an
 * insert, or an update that must find the version it was decided on), a cascade move's hold swap and a give-back's
 * cost recovery (`bookingSteps`); then the announcer's outbox rows, its live event bodies and rows
 * (`announcementSteps`). The booking writer thread runs both lists; `runSteps` runs them on the service's own
 * connection, the booking's first, so that its refusals (a provider's number another live booking holds) come before
 * the announcer's (the live event bound) as they always have there.
 */
export function bookingSteps(row: BookingRow | null | undefined, next: BookingRow, write: BookingWrite): WriteStep[] {
  const { hold, recovery } = write;
  const steps: WriteStep[] = [
    row ? { statement: UPDATE_BOOKING, args: updateArgs(next, row.version), mustChange: true } : { statement: INSERT_BOOKING, args: insertArgs(next) },
  ];
  if (hold) steps.push(...holdSwapSteps(hold));
  // A give-back's cost recovery, in the booking's transaction (docs/settlement.md#give-back-recovery).
  if (recovery) steps.push(recoveryStep(recovery));
  return steps;
}

/** The booking's row as the change writes it: the decided booking at the version after the one read. */
export function nextRow(row: BookingRow | null | undefined, booking: Booking): BookingRow {
  return toRow(booking, (row?.version ?? 0) + 1);
}

/** The change's announcements as steps (see bookingSteps); `wake`: it wrote outbox rows, for the delivery worker. */
export function announcementSteps(
  row: BookingRow | null | undefined,
  next: BookingRow,
  write: BookingWrite,
  announcer: ChangeAnnouncer,
): { steps: WriteStep[]; wake: boolean } {
  const { booking, events } = write;
  const steps: WriteStep[] = [];
  const messages = announcer.messages(events, booking);
  for (const { message, at } of messages) steps.push({ statement: INSERT_OUTBOX, args: SqliteOutbox.insertArgs(message, at) });
  const live = announcer.live?.(events, booking, row ? replacedBytes(row, next) : 0) ?? [];
  for (const args of SqliteLiveEventLog.bodyArgs(live)) steps.push({ statement: INSERT_LIVE_BODY, args });
  for (const r of live) steps.push({ statement: INSERT_LIVE_EVENT, args: SqliteLiveEventLog.insertArgs(r) });
  return { steps, wake: messages.length > 0 };
}

/**
 * What a failed booking write means to its caller: the provider's number held by another live booking is a 409, and so
 * is a cascade move's next vehicle held by another booking (VEHICLE_UNAVAILABLE).
 */
export function writeError(error: unknown, booking: Pick<Booking, "providerResNo">, hold?: BookingWrite["hold"]): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (hold && message === HOLD_TAKEN) return holdTaken(hold);
  return PROVIDER_RES_NO_TAKEN.test(message) ? providerResNoInUse(booking.providerResNo) : error;
}

/**
 * Runs one change's steps on this connection (`statements`: BOOKING_WRITER_STATEMENTS prepared on it), inside the
 * caller's transaction, as the writer thread runs them: an update that finds no row of its version means the booking
 * changed concurrently, a hold swap that inserts nothing means the next vehicle is held (409).
 */
export function runSteps(statements: readonly Statement[], steps: readonly WriteStep[], write: Pick<BookingWrite, "booking" | "hold">): void {
  for (const step of steps) {
    let changes: number;
    try {
      changes = statements[step.statement].run(...step.args).changes;
    } catch (error) {
      // A failed statement is undone alone (the transaction goes on): the caller may record something else.
      throw writeError(error, write.booking, write.hold);
    }
    if (step.mustChange === "hold" && changes === 0) throw holdTaken(write.hold!);
    if (step.mustChange === true && changes === 0) throw new Error(`booking ${write.booking.transactionId} changed concurrently`);
  }
}
