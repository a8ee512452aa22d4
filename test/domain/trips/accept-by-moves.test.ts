import { describe, expect, test } from "bun:test";
import { acceptByFollowingPickup, acceptByFor, offerDue } from "../../../domain/trips/offers";
import type { Booking } from "../../../domain/trips/booking";
import { bookingFixture } from "../../support/booking-fixture";

// A moved pickup pulls acceptBy in (docs/terms.md#a-moved-pickup-pulls-acceptby-in), pure: min(acceptBy,
// max(new pickup − 30 min, the move + 5 min)) while unaccepted; never later, never within 5 min of the move.

const MIN = 60;
const BOOKED = Date.parse("2027-01-15T10:00:00Z") / 1000;
const PICKUP = BOOKED + 3 * 3600;
const booking = (over: Partial<Booking> = {}): Booking =>
  bookingFixture({ status: "BOOKING_REQUEST", pickupDate: PICKUP, updatedAt: BOOKED, acceptBy: acceptByFor(BOOKED, PICKUP), ...over });
/** `b` with its pickup moved to `to`, then the rule applied at `now`. */
const move = (b: Booking, to: number, now: number) => acceptByFollowingPickup(b, { ...b, pickupDate: to }, now);

describe("a moved pickup pulls acceptBy in", () => {
  test("an earlier pickup: 30 min before it, at least 5 min after the move, never later than before; the watch is due then", () => {
    expect(booking().acceptBy).toBe(BOOKED + 30 * MIN);
    const cases: Array<[to: number, now: number, acceptBy: number]> = [
      [BOOKED + 50 * MIN, BOOKED + MIN, BOOKED + 20 * MIN],
      [BOOKED + 22 * MIN, BOOKED + MIN, BOOKED + 6 * MIN],
      [BOOKED - 10 * MIN, BOOKED + MIN, BOOKED + 6 * MIN],
      [BOOKED + 2 * 3600, BOOKED + MIN, BOOKED + 30 * MIN],
      [BOOKED + 58 * MIN, BOOKED + 27 * MIN, BOOKED + 30 * MIN],
    ];
    for (const [to, now, acceptBy] of cases) {
      const after = move(booking(), to, now);
      expect({ to, now, acceptBy: after.acceptBy, due: offerDue(after) }).toEqual({ to, now, acceptBy, due: acceptBy });
      expect(after.changeLogs.length).toBe(acceptBy === BOOKED + 30 * MIN ? 0 : 1);
    }
    expect(move(booking(), BOOKED + 50 * MIN, BOOKED + MIN).changeLogs).toEqual([
      { timestamp: "2027-01-15T10:01:00Z", changeSource: "exchange", changeDesc: "acceptBy moved from 2027-01-15T10:30:00Z to 2027-01-15T10:20:00Z: the pickup moved to 2027-01-15T10:50:00Z" },
    ]);
  });

  test("a later pickup, an accepted booking, a quote: acceptBy as it was", () => {
    expect(move(booking(), PICKUP + 3600, BOOKED + MIN).acceptBy).toBe(BOOKED + 30 * MIN);
    for (const status of ["CONFIRMED", "ASSIGNED", "QUOTE", "CANCEL"] as const)
      expect({ status, acceptBy: move(booking({ status }), BOOKED + 50 * MIN, BOOKED + MIN).acceptBy }).toEqual({ status, acceptBy: BOOKED + 30 * MIN });
    expect(move(booking({ status: "PENDING" }), BOOKED + 50 * MIN, BOOKED + MIN).acceptBy).toBe(BOOKED + 20 * MIN);
    expect(move(booking({ acceptBy: undefined }), BOOKED + 50 * MIN, BOOKED + MIN).acceptBy).toBeUndefined();
  });
});
