import { describe, expect, test } from "bun:test";
import { holdsLuggage, luggageCountField, readLuggageCount, readPassengerCount } from "../../../domain/trips/luggage";

describe("luggageCount rules", () => {
  test("missing, null, empty and blank mean not specified — never 0", () => {
    for (const raw of [undefined, null, "", "   "]) expect(readLuggageCount(raw)).toEqual({ ok: true, value: undefined });
    expect(luggageCountField(undefined)).toEqual({});
  });

  test("a whole number ≥ 0 is read after trimming, 0 included", () => {
    expect(readLuggageCount(" 3 ")).toEqual({ ok: true, value: 3 });
    expect(readLuggageCount("0")).toEqual({ ok: true, value: 0 });
    expect(luggageCountField(0)).toEqual({ luggageCount: "0" });
  });

  test("anything else is invalid", () => {
    for (const raw of ["-1", "2.5", "three", "1e2", "+3", "0x10"]) expect(readLuggageCount(raw).ok).toBe(false);
  });

  test("a vehicle holds the luggage when none is specified, else only with a known, large enough capacity", () => {
    expect(holdsLuggage(null, undefined)).toBe(true);
    expect(holdsLuggage(2, undefined)).toBe(true);
    expect(holdsLuggage(null, 0)).toBe(false);
    expect(holdsLuggage(3, 3)).toBe(true);
    expect(holdsLuggage(2, 3)).toBe(false);
  });

  test("passengerCount is required and a whole number ≥ 1", () => {
    expect(readPassengerCount(" 3")).toEqual({ ok: true, value: 3 });
    for (const raw of [undefined, "", "0", "-2", "1.5", "x"]) expect(readPassengerCount(raw).ok).toBe(false);
  });
});
