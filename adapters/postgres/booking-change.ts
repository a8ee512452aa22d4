import { and, eq } from "drizzle-orm";
import type { Booking } from "../../domain/trips/booking";
import type { BookingWrite, ChangeAnnouncer, Decision } from "../../domain/trips/ports";
import type { BookingRef } from "../../domain/trips/send-trip-request";
import type { PgDb } from "./db";
import { uniqueViolationOf } from "./unique-keys";
import { bookings, outboxMessages, PROVIDER_RES_NO_LIVE } from "./schema";
import { TERMINAL_STATUSES_SQL } from "../sql/status-sql";
import { providerResNoInUse } from "../../domain/trips/provider-update";
import { TERMINAL_STATUSES } from "../../domain/trips/lifecycle";
import { historyCapped } from "../../domain/trips/booking-bounds";
import { changedValues, toBooking, toRow, type BookingRow } from "./booking-rows";
import { replacedBytes } from "../../domain/trips/booking-record";
import { clientOf } from "./booking-insert";
import { insertLiveEvents } from "./live-event-log";
import { holdSwapArgs, holdSwapSql, holdTaken } from "../sql/hold-sql";
import { recoveryArgs, recoverySql } from "../sql/recovery-sql";
import { vehicleLockKey } from "./vehicle-holds";

/**
 * One booking change inside a transaction (docs/postgres.md#a-refused-change-writes-nothing): the row read under its
 * lock, the decision, every refusal asked before the write (the provider's number, the hold swap), then the booking,
 * its outbox rows, its live events and a give-back's recovery. PgBookingRepository decides when and in which
 * transaction a change runs (one at a time per booking, group commit); this file is what one change does.
 */

/** A transaction of the PostgreSQL database (what `db.transaction` hands its callback). */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/** What a change announces with, and the reads the announcer's lookups need first. */
export interface ChangeParts {
  announcer: ChangeAnnouncer;
  prefetch: (bookings: Booking[], created: boolean) => Promise<void>;
}

/** Another writer changed the booking, or took its requesterResNo, after it was read: decide again. */
export class BookingConflict extends Error {}

/** Whether `error` means the change met a concurrent writer and may be decided again on the fresh state. */
export function isBookingConflict(error: unknown): boolean {
  if (error instanceof BookingConflict) return true;
  const constraint = uniqueViolationOf(error);
  // A provider's number held by another live booking is the change's answer (409), not a race to decide again.
  return constraint !== undefined && constraint.startsWith("bookings") && constraint !== PROVIDER_RES_NO_LIVE;
}

const HOLD_SWAP = holdSwapSql((n, bigint) => `$${n}${bigint ? "::bigint" : ""}`);
const INSERT_RECOVERY = recoverySql((n) => `$${n}`).insert;

/**
 * A cascade move's hold swap (docs/terms.md#the-cascade-fallback) in the booking's transaction, under the vehicle's advisory lock as
 * PgVehicleHolds.claim takes it: the booking's hold is replaced by the next vehicle's, or the change fails (409).
 */
async function swapHold(tx: PgTx, hold: NonNullable<BookingWrite["hold"]>): Promise<void> {
  const client = clientOf(tx);
  await client.unsafe("SELECT pg_advisory_xact_lock(hashtextextended($1, 19005))", [vehicleLockKey(hold.slug)]);
  await client.unsafe(HOLD_SWAP.remove, [hold.transactionId]);
  const inserted = await client.unsafe<unknown[]>(`${HOLD_SWAP.insert} RETURNING id`, [...holdSwapArgs(hold)]);
  if (inserted.length === 0) throw holdTaken(hold);
}

/** Whether the write gives the booking a provider's number it did not hold. */
function takesNumber(booking: Pick<Booking, "providerResNo">, row: BookingRow | undefined): boolean {
  return booking.providerResNo !== null && booking.providerResNo !== (row?.providerResNo ?? null);
}

/** Whether another live booking of the provider holds the number the booking is about to take (the index's rule). */
async function numberHeldElsewhere(tx: PgTx, booking: Booking): Promise<boolean> {
  if (TERMINAL_STATUSES.has(booking.status)) return false;
  const held = await clientOf(tx).unsafe<unknown[]>(
    `SELECT 1 FROM bookings WHERE provider_id = $1 AND provider_res_no = $2 AND transaction_id <> $3 AND status NOT IN (${TERMINAL_STATUSES_SQL}) LIMIT 1`,
    [booking.providerId, booking.providerResNo, booking.transactionId],
  );
  return held.length > 0;
}

/**
 * Reads the booking under its row lock, decides, and writes the change with its announcements. Whatever may refuse
 * the change (the hold swap's 409, another live booking's provider number, the live event bound's 429) is asked
 * before the booking is written: PostgreSQL keeps a written row version and its TOAST chunks until VACUUM even when
 * the transaction rolls back, so a refused change of a large booking would grow the database by the booking's size
 * (docs/postgres.md#a-refused-change-writes-nothing).
 */
export async function readDecideWrite<R>(
  tx: PgTx,
  ref: BookingRef,
  decide: (current: Booking | undefined) => Decision<R>,
  parts: ChangeParts,
): Promise<{ result: R; announced: boolean }> {
  const where =
    "transactionId" in ref
      ? eq(bookings.transactionId, ref.transactionId)
      : and(eq(bookings.requesterId, ref.requesterId), eq(bookings.requesterResNo, ref.requesterResNo));
  const [row] = await tx.select().from(bookings).where(where).limit(1).for("update");
  // Capped before the announcer builds anything from the booking.
  const decision = historyCapped(decide(row ? toBooking(row) : undefined));
  if (!decision.write) return { result: decision.result, announced: false };
  const { booking, events, hold } = decision.write;
  // The lookups' prefetch reads (what the account cache misses) through the pool while the refusals that need the
  // transaction run on its connection; a booking created here has no position yet. A cascade move announces to the
  // provider that lost the booking too (its CANCEL): its integration is read as well.
  const moved = row && row.providerId !== booking.providerId ? [toBooking(row)] : [];
  const checks = async () => {
    // The number first: it writes nothing, so a caller that goes on after its refusal (the delivery worker) keeps
    // nothing of this change.
    if (takesNumber(booking, row) && (await numberHeldElsewhere(tx, booking))) throw providerResNoInUse(booking.providerResNo);
    if (hold) await swapHold(tx, hold);
  };
  await Promise.all([checks(), parts.prefetch([booking, ...moved], !row)]);
  // A give-back's cost recovery, in this transaction (docs/settlement.md#give-back-recovery).
  if (decision.write.recovery) await clientOf(tx).unsafe(INSERT_RECOVERY, [...recoveryArgs(decision.write.recovery, (w) => w)]);
  const messages = parts.announcer.messages(events, booking);
  const next = toRow(booking, (row?.version ?? 0) + 1);
  // Live events go in unnumbered; the sequencer numbers them once committed (PgLiveEventLog).
  const live = parts.announcer.live?.(events, booking, row ? replacedBytes(row, next) : 0) ?? [];
  await writeBooking(tx, next, row);
  if (messages.length > 0) {
    await tx.insert(outboxMessages).values(
      messages.map(({ message, at }) => ({ ...message, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: Math.floor(at) })),
    );
  }
  if (live.length > 0) await insertLiveEvents(clientOf(tx), live);
  return { result: decision.result, announced: messages.length > 0 };
}

/** Inserts the booking's record, or updates its row from the version read (a conflict when it moved since). */
async function writeBooking(tx: PgTx, next: BookingRow, row: BookingRow | undefined): Promise<void> {
  const write = async (tx: PgTx) => {
    if (!row) await tx.insert(bookings).values(next);
    else {
      const current = and(eq(bookings.transactionId, row.transactionId), eq(bookings.version, row.version));
      const updated = await tx.update(bookings).set(changedValues(next, row)).where(current).returning({ version: bookings.version });
      if (updated.length === 0) throw new BookingConflict(`booking ${next.transactionId} changed concurrently`);
    }
  };
  // A write that gives the booking a provider's number may still meet the index that keeps the number on one live
  // booking (another change took it since the check): it runs in a savepoint, so the refusal undoes it alone and
  // the transaction may record something else.
  if (!takesNumber(next, row)) return write(tx);
  await tx.transaction(async (savepoint) => {
    try {
      await write(savepoint);
    } catch (error) {
      throw uniqueViolationOf(error) === PROVIDER_RES_NO_LIVE ? providerResNoInUse(next.providerResNo) : error;
    }
  });
}
