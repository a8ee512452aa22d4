import { describe, expect, test } from "bun:test";
import { parseDateTime, readCoordinate } from "../../../domain/trips/places";
import { describeTripChanges } from "../../../domain/trips/trip-changes";
import type { Trip } from "../../../domain/trips/booking";

describe("pickup date-times and positions", () => {
  test("ISO 8601 date-times with and without offset; invalid calendar dates refused", () => {
    expect(parseDateTime("2026-12-03T18:45")).toEqual({ local: "2026-12-03T18:45:00", offsetMinutes: null, naiveUnix: Date.UTC(2026, 11, 3, 18, 45) / 1000 });
    expect(parseDateTime("2026-12-03T18:45:00.250Z")?.offsetMinutes).toBe(0);
    expect(parseDateTime("2026-11-20T14:05:00-05:00")?.offsetMinutes).toBe(-300);
    expect(parseDateTime("2026-11-20T14:05:00+0530")?.offsetMinutes).toBe(330);
    for (const bad of ["2026-02-30T10:00", "2026-12-03 18:45", "tomorrow", "2026-12-03T24:00", "2026-12-03"]) expect(parseDateTime(bad)).toBeUndefined();
  });

  test("coordinates are decimal strings within range", () => {
    expect(readCoordinate("40.6413", 90)).toBe(40.6413);
    expect(readCoordinate("-73.7781", 180)).toBe(-73.7781);
    expect(readCoordinate("91", 90)).toBeUndefined();
    expect(readCoordinate("abc", 90)).toBeUndefined();
    expect(readCoordinate("", 90)).toBeUndefined();
  });
});

describe("change descriptions", () => {
  const trip: Trip = { reservationType: "REGULAR", passengerCount: "2", luggageCount: "2", locations: { pickup: { time: "2026-12-03T18:45:00" } }, passengers: [{ firstName: "A", lastName: "B" }], fees: [] };

  test("say what changed, from what to what; personal data is named, not quoted", () => {
    const after: Trip = { ...trip, luggageCount: "3", locations: { pickup: { time: "2026-12-03T19:00:00" } }, passengers: [{ firstName: "C", lastName: "B" }] };
    expect(describeTripChanges(trip, after)).toEqual(["luggageCount 2 → 3", "locations.pickup.time 2026-12-03T18:45:00 → 2026-12-03T19:00:00", "passengers changed"]);
    const { luggageCount: _, ...withoutLuggage } = trip;
    expect(describeTripChanges(trip, withoutLuggage)).toEqual(["luggageCount 2 → (not specified)"]);
    expect(describeTripChanges(trip, { ...trip })).toEqual([]);
  });
});
