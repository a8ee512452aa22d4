import { describe, expect, test } from "bun:test";
import { approachRoute, DEFAULT_SANDBOX_SCHEDULE, SANDBOX_NEXT } from "../../../domain/usecases/sandbox-dispatch";
import { allowedNext, TERMINAL_STATUSES, type TripStatus } from "../../../domain/trips/lifecycle";
import { distanceKm } from "../../../domain/trips/places";

describe("the sandbox's script", () => {
  test("every move it makes is one the lifecycle allows a provider, and it ends in CLOSE", () => {
    for (const [from, to] of Object.entries(SANDBOX_NEXT) as Array<[TripStatus, TripStatus]>) expect(allowedNext(from, "provider")).toContain(to);
    let status: TripStatus = "BOOKING_REQUEST";
    const path: TripStatus[] = [status];
    for (let i = 0; i < 20 && !TERMINAL_STATUSES.has(status); i++) path.push((status = SANDBOX_NEXT[status]!));
    expect(path).toEqual(["BOOKING_REQUEST", "CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD", "COMPLETE", "CLOSE"]);
  });

  test("the default pace closes a trip within a minute", () => {
    const { stepMs, positionMs, positions } = DEFAULT_SANDBOX_SCHEDULE;
    // Six timed status moves, the en-route leg (positions, then on location one interval later), plus a tick each.
    expect(6 * stepMs + (positions + 1) * positionMs + 8 * 1000).toBeLessThan(60_000);
  });

  test("the chauffeur approaches the pickup: each position closer, the last one at the pickup", () => {
    const pickup = { lat: 40.6413, lon: -73.7781 };
    const route = approachRoute(pickup, "0190a2b4-7c1e-7d3f-9a55-3c2b1d0e9f88", 8);
    expect(route).toHaveLength(10);
    expect(route[9]).toEqual(pickup);
    const d = route.map((p) => distanceKm(p, pickup));
    expect(d[0]).toBeGreaterThan(3.5);
    expect(d[0]).toBeLessThan(7);
    for (let i = 1; i < d.length; i++) expect(d[i]).toBeLessThan(d[i - 1]);
    expect(approachRoute(pickup, "other-id", 8)[0]).not.toEqual(route[0]);
  });
});
