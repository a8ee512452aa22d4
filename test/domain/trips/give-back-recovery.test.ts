import { describe, expect, test } from "bun:test";
import type { Booking } from "../../../domain/trips/booking";
import { costRecoveryFor, DEFAULT_GIVE_BACK_RECOVERY, FLIGHT_MOVED_PICKUP, NO_FLIGHT_MOVE, recoveryPercentAt, recoveryWaiver } from "../../../domain/trips/give-back-recovery";

/** The recovery's rules (docs/settlement.md#give-back-recovery): the tier a give-back falls in, the rounding, the flight waiver. */

const PICKUP = 1_800_000_000;
const booking = (fee: string, currency: string): Booking =>
  ({
    transactionId: "t",
    requesterId: "REQ",
    providerId: "PRO",
    pickupDate: PICKUP,
    totalAmount: fee,
    trip: { fees: [{ type: "BASE", code: "BASE", fee, currency }] },
  }) as unknown as Booking;

describe("give-back recovery", () => {
  test("the default tiers: 0 % until 24 h before, 50 % until 2 h before, then 100 % (after the pickup too)", () => {
    const at = (minutesBefore: number) => recoveryPercentAt(DEFAULT_GIVE_BACK_RECOVERY, PICKUP, PICKUP - minutesBefore * 60);
    expect([at(3000), at(1440), at(1439), at(120), at(119), at(0), at(-30)]).toEqual([0, 0, 50, 50, 100, 100, 100]);
  });

  test("rounded half up in the currency's minor unit: 50 % of 0.15 USD is 0.08; of 5001 JPY, 2501", () => {
    expect(costRecoveryFor(booking("0.15", "USD"), PICKUP - 60 * 60 * 3, NO_FLIGHT_MOVE)).toMatchObject({ percent: 50, amount: "0.08" });
    expect(costRecoveryFor(booking("5001", "JPY"), PICKUP - 60 * 60 * 3, NO_FLIGHT_MOVE)).toMatchObject({ percent: 50, amount: "2501" });
  });

  test("waived when a flight moved the pickup by more than 60 minutes, either way; not at 60", () => {
    const b = booking("150.00", "USD");
    expect(recoveryWaiver(b, () => 61)).toBe(FLIGHT_MOVED_PICKUP);
    expect(recoveryWaiver(b, () => -90)).toBe(FLIGHT_MOVED_PICKUP);
    expect(recoveryWaiver(b, () => 60)).toBeUndefined();
    expect(recoveryWaiver(b, NO_FLIGHT_MOVE)).toBeUndefined();
    expect(costRecoveryFor(b, PICKUP - 3600, () => 75)).toMatchObject({ amount: "150.00", percent: 100, waived: FLIGHT_MOVED_PICKUP });
  });
});
