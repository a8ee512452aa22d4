import { describe, expect, test } from "bun:test";
import { notesForPartner, partnerCopy } from "../../../domain/delivery/luggage";

describe("notesForPartner", () => {
  test("a notes partner gets exactly one luggage line after the original notes", () => {
    expect(notesForPartner("Flight often early", "4", "notes")).toBe("Flight often early\nLuggage Count : 4");
  });
  test("with no notes the line stands alone", () => {
    expect(notesForPartner(undefined, "2", "notes")).toBe("Luggage Count : 2");
    expect(notesForPartner("", "2", "notes")).toBe("Luggage Count : 2");
  });
  test("an earlier luggage line is replaced, not repeated", () => {
    expect(notesForPartner("Meet at door 6\nLuggage Count : 2", "5", "notes")).toBe("Meet at door 6\nLuggage Count : 5");
    expect(notesForPartner("Luggage Count : 2\nMeet at door 6\nLuggage Count : 3\n", "5", "notes")).toBe("Meet at door 6\nLuggage Count : 5");
  });
  test("no line when luggage is not specified, or for a native partner", () => {
    expect(notesForPartner("keep me", undefined, "notes")).toBe("keep me");
    expect(notesForPartner("keep me", "  ", "notes")).toBe("keep me");
    expect(notesForPartner("keep me", "4", "native")).toBe("keep me");
  });
  test("zero is a known value", () => {
    expect(notesForPartner(undefined, "0", "notes")).toBe("Luggage Count : 0");
  });
});

describe("partnerCopy", () => {
  const trip = { reservationType: "REGULAR", luggageCount: "3", specialInstructions: "Wait at door 6" };
  test("native: the field only, notes untouched", () => {
    expect(partnerCopy(trip, "native")).toEqual(trip);
  });
  test("notes: the field and the line", () => {
    expect(partnerCopy(trip, "notes")).toEqual({ ...trip, specialInstructions: "Wait at door 6\nLuggage Count : 3" });
  });
  test("unspecified luggage: no field and no line", () => {
    const copy: Record<string, unknown> = partnerCopy({ reservationType: "REGULAR", luggageCount: "", specialInstructions: "x" }, "notes");
    expect(copy).toEqual({ reservationType: "REGULAR", specialInstructions: "x" });
    expect("luggageCount" in copy).toBe(false);
  });
  test("never changes the original", () => {
    const original = { ...trip };
    partnerCopy(original, "notes");
    expect(original).toEqual(trip);
  });
});
