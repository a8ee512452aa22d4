import type { Booking, BookingEvent } from "./booking";

/** What a decision writes: the booking's new state and what happened, persisted together or not at all. */
export interface BookingWrite {
  booking: Booking;
  events: BookingEvent[];
}

/** The outcome of deciding on a booking: an answer for the caller, and the write it needs (none for a no-op). */
export interface Decision<R> {
  result: R;
  write?: BookingWrite;
}
