import { describe, expect, test } from "bun:test";
import { giveBackWaived, pickupFlight, type FlightRecord } from "../../../domain/trips/flights";

/**
 * The give-back waiver's predicate (docs/flights.md#a-big-move-lets-the-provider-give-the-booking-back): a pickup its
 * flight moved more than 60 min from the pickup booked lets the provider give the booking back without recovery, for
 * 30 min after the move; and the offset a booking keeps (docs/flights.md#flights).
 */

const PICKUP = 1_800_000_000;
const moved = (minutes: number, at: number): { flight: FlightRecord } => ({
  flight: { originalPickup: PICKUP, lastMove: { from: PICKUP, to: PICKUP + minutes * 60, cause: minutes > 0 ? "FLIGHT_DELAY" : "FLIGHT_EARLY", at } },
});

describe("giveBackWaived", () => {
  test("a move of more than 60 min, later or earlier, waives the recovery for 30 min after it", () => {
    const at = PICKUP - 7200;
    expect(giveBackWaived(moved(61, at), at)).toBe(true);
    expect(giveBackWaived(moved(-75, at), at + 1800)).toBe(true);
    expect(giveBackWaived(moved(61, at), at + 1801)).toBe(false);
  });

  test("60 min or less, no move, or no flight: never waived", () => {
    const at = PICKUP - 7200;
    expect(giveBackWaived(moved(60, at), at)).toBe(false);
    expect(giveBackWaived(moved(-60, at), at)).toBe(false);
    expect(giveBackWaived({ flight: { originalPickup: PICKUP } }, at)).toBe(false);
    expect(giveBackWaived({}, at)).toBe(false);
  });

  test("counted from the pickup booked: two moves of 40 min each add up", () => {
    const at = PICKUP - 3600;
    const second: { flight: FlightRecord } = {
      flight: { originalPickup: PICKUP, lastMove: { from: PICKUP + 2400, to: PICKUP + 4800, cause: "FLIGHT_DELAY", at } },
    };
    expect(giveBackWaived(second, at + 60)).toBe(true);
  });
});

describe("pickupFlight", () => {
  const read = (time: string) => Date.parse(`${time}Z`) / 1000;
  test("keeps pickup − scheduled landing in minutes; no landing: the offset waits for one; no flight: nothing", () => {
    const pickup = read("2027-09-03T22:30:00");
    expect(pickupFlight({ airlineCode: "BA", flightNumber: "117", scheduledArrival: "2027-09-03T21:45:00" }, pickup, read)).toEqual({
      pickupOffsetMinutes: 45,
      scheduledLanding: read("2027-09-03T21:45:00"),
      originalPickup: pickup,
    });
    expect(pickupFlight({ airlineCode: "BA", flightNumber: "117" }, pickup, read)).toEqual({ originalPickup: pickup });
    expect(pickupFlight({ airlineCode: "", flightNumber: "" }, pickup, read)).toBeUndefined();
  });

  test("a landing after the pickup or more than a day before it is refused naming scheduledArrival", () => {
    const pickup = read("2027-09-03T22:30:00");
    for (const landing of ["2027-09-03T22:31:00", "2027-09-02T22:29:00"])
      expect(() => pickupFlight({ airlineCode: "BA", flightNumber: "117", scheduledArrival: landing }, pickup, read)).toThrow();
  });
});
