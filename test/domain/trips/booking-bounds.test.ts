import { describe, expect, test } from "bun:test";
import { historyCapped, MAX_OBJECT_MEMBERS, storedSize, withinBounds } from "../../../domain/trips/booking-bounds";
import { shownExtras, splitExtras } from "../../../domain/trips/reserved-names";
import { RESERVED_TRIP_NAMES } from "../../../domain/trips/reserved-names";
import type { Booking } from "../../../domain/trips/booking";
import { newBooking } from "../../adapters/contract/trips-fixtures";

const write = (booking: Booking) => ({ result: 1, write: { booking, events: [] } });
const withExtra = (b: Booking, extra: Record<string, unknown>): Booking => ({ ...b, trip: { ...b.trip, extra } });

describe("a booking's bounds", () => {
  test("counts UTF-8 bytes: a multi-byte text weighs what it is sent as", () => {
    const b = newBooking();
    expect(storedSize(withExtra(b, { note: "é".repeat(1000) })) - storedSize(withExtra(b, { note: "e".repeat(1000) }))).toBe(1000);
  });

  test("refuses a change that grows the booking past the limit, lets one through that keeps or shrinks an oversized one", () => {
    const small = newBooking();
    const big = withExtra(small, { blob: "x".repeat(5000) });
    const limits = { maxBytes: storedSize(small) + 1000 };
    expect(() => withinBounds(write(big), small, limits)).toThrow(expect.objectContaining({ code: "BOOKING_TOO_LARGE" }));
    const smaller = withExtra(small, { blob: "x".repeat(4000) });
    expect(withinBounds(write(smaller), big, limits).write?.booking).toBe(smaller);
    expect(withinBounds({ result: 1 }, big, limits)).toEqual({ result: 1 });
  });

  test("members no schema names: at most MAX_OBJECT_MEMBERS in the trip, unless the booking had more already", () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, 1]));
    const b = newBooking();
    const limits = { maxBytes: 10_000_000 };
    expect(() => withinBounds(write(withExtra(b, many(MAX_OBJECT_MEMBERS + 1))), b, limits)).toThrow(expect.objectContaining({ code: "BOOKING_TOO_MANY_MEMBERS" }));
    expect(withinBounds(write(withExtra(b, many(MAX_OBJECT_MEMBERS))), b, limits).write).toBeDefined();
    const over = withExtra(b, many(MAX_OBJECT_MEMBERS + 5));
    expect(withinBounds(write(over), over, limits).write).toBeDefined();
  });

  test("history is capped in the write itself", () => {
    const logs = Array.from({ length: 250 }, (_, i) => ({ timestamp: "2026-01-01T00:00:00Z", changeSource: "provider:u", changeDesc: `line ${i}` }));
    const capped = historyCapped(write({ ...newBooking(), changeLogs: logs }));
    expect(capped.write?.booking.changeLogs).toHaveLength(200);
    expect(capped.write?.booking.changeLogs[0].changeSource).toBe("TRIMMED");
  });
});

describe("reserved names", () => {
  test("a requester's copy of a reserved name is held under requesterExtra; others stay; nothing is dropped", () => {
    const extra = { chauffeur: { firstName: "Fake" }, customerTier: "gold", requesterExtra: "mine" };
    expect(splitExtras(extra, RESERVED_TRIP_NAMES)).toEqual({ shown: { customerTier: "gold" }, held: { chauffeur: { firstName: "Fake" }, requesterExtra: "mine" } });
    expect(shownExtras(extra, RESERVED_TRIP_NAMES)).toEqual({ customerTier: "gold", requesterExtra: { chauffeur: { firstName: "Fake" }, requesterExtra: "mine" } });
    expect(shownExtras({ customerTier: "gold" }, RESERVED_TRIP_NAMES)).toEqual({ customerTier: "gold" });
    expect(shownExtras(undefined, RESERVED_TRIP_NAMES)).toEqual({});
  });
});
