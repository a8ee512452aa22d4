import { describe, expect, test } from "bun:test";
import type { Booking } from "../../../domain/trips/booking";
import { flightKey, flightQuery, MIN_ESTIMATE_CHANGE_MINUTES, newsFor } from "../../../domain/trips/flight-watch";
import type { FlightRecord } from "../../../domain/trips/flights";

/**
 * The flight-status poller's rules (docs/flights.md#the-flight-status-poller): the flight a booking is asked about
 * (its name as people say it, its scheduled landing), one key per flight, and which answer is news.
 */

const LANDING = 1_800_000_000;
const booking = (flight: FlightRecord | undefined, flightInfo: Record<string, unknown> = { airlineCode: "b6", flightNumber: "B6 1544" }) =>
  ({ status: "CONFIRMED", flight, trip: { locations: { pickup: { address: "JFK", flightInfo } } } }) as unknown as Booking;
const scheduled: FlightRecord = { scheduledLanding: LANDING, pickupOffsetMinutes: 45, originalPickup: LANDING + 2700 };

describe("the flight asked about", () => {
  test("the airline's code upper-cased, the number without it, the scheduled landing; one key per flight", () => {
    const query = flightQuery(booking(scheduled))!;
    expect(query).toEqual({ airlineCode: "B6", flightNumber: "1544", scheduledLanding: LANDING });
    expect(flightKey(query)).toBe(flightKey(flightQuery(booking(scheduled, { airlineCode: "B6", flightNumber: "1544" }))!));
    expect(flightKey(query)).not.toBe(flightKey({ ...query, scheduledLanding: LANDING + 86_400 }));
  });

  test("no question without a schedule, after the landing, or without a flight", () => {
    expect(flightQuery(booking({ originalPickup: LANDING }))).toBeUndefined();
    expect(flightQuery(booking({ ...scheduled, landedAt: LANDING }))).toBeUndefined();
    expect(flightQuery(booking(scheduled, { airlineCode: "", flightNumber: "" }))).toBeUndefined();
  });
});

describe("news", () => {
  test("an estimate moved by at least the threshold, or a landing the booking does not know, is news", () => {
    const minutes = MIN_ESTIMATE_CHANGE_MINUTES * 60;
    expect(newsFor(booking(scheduled), { estimatedLanding: LANDING + minutes })).toEqual({ kind: "ESTIMATED", landing: LANDING + minutes });
    expect(newsFor(booking(scheduled), { estimatedLanding: LANDING - minutes })).toMatchObject({ kind: "ESTIMATED" });
    expect(newsFor(booking(scheduled), { estimatedLanding: LANDING + 60, landedAt: LANDING + 60 })).toEqual({ kind: "LANDED", landing: LANDING + 60 });
  });

  test("the same estimate, one a few minutes off, the landing already known, or nothing said: no news", () => {
    const estimated = { ...scheduled, estimatedLanding: LANDING + 3600 };
    expect(newsFor(booking(scheduled), { scheduledLanding: LANDING, estimatedLanding: LANDING })).toBeUndefined();
    expect(newsFor(booking(estimated), { estimatedLanding: LANDING + 3600 + MIN_ESTIMATE_CHANGE_MINUTES * 60 - 1 })).toBeUndefined();
    expect(newsFor(booking({ ...scheduled, landedAt: LANDING }), { landedAt: LANDING })).toBeUndefined();
    expect(newsFor(booking(scheduled), { scheduledLanding: LANDING })).toBeUndefined();
  });
});
