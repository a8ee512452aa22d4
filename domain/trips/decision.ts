import type { Booking, BookingEvent, CostRecoveryRecord } from "./booking";

/** What a decision writes: the booking's new state and what happened, persisted together or not at all. */
export interface BookingWrite {
  booking: Booking;
  events: BookingEvent[];
  /**
   * The vehicle the booking holds from now on (a cascade move, docs/terms.md#the-cascade-fallback; a requester's UPDATE
   * that moves the trip, docs/availability.md#an-update-moves-the-hold): written in the SAME transaction, replacing
   * the booking's own hold, unless another live hold overlaps — then nothing of the write is kept and the change
   * fails with 409 VEHICLE_UNAVAILABLE.
   */
  /**
   * A give-back's cost recovery (docs/settlement.md#give-back-recovery), stored in the same transaction in a table of
   * its own, so that statements read it by requester, provider and pickup month.
   */
  recovery?: CostRecoveryRecord;
  hold?: { slug: string; provider: string; requester: string; transactionId: string; from: number; to: number; at: number };
}

/** The outcome of deciding on a booking: an answer for the caller, and the write it needs (none for a no-op). */
export interface Decision<R> {
  result: R;
  write?: BookingWrite;
}
