import { describe, expect, test } from "bun:test";
import { sameClassOrBetter, vehicleClassRank } from "../../../domain/fleet/vehicle-class";

// fallback.sameClassOrBetter (docs/terms.md#each-provider-its-own-terms): the class booked or a larger one, never smaller.
describe("vehicle classes", () => {
  test("the listed classes rank by size, in any letter case; other codes have no class", () => {
    expect(["SEDAN", "EXECUTIVE", "SUV", "VAN_MINI", "LIMO", "SPRINTER", "MINIBUS", "COACH"].map(vehicleClassRank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(vehicleClassRank(" suv ")).toBe(2);
    expect(vehicleClassRank("HOVERCRAFT")).toBeUndefined();
  });

  test("same class or better: a larger class or the same code; never a smaller one, nor an unknown code for a known one", () => {
    expect(sameClassOrBetter("SUV", "SPRINTER")).toBe(true);
    expect(sameClassOrBetter("SUV", "SUV")).toBe(true);
    expect(sameClassOrBetter("VAN", "MINIVAN")).toBe(true);
    expect(sameClassOrBetter("SUV", "SEDAN")).toBe(false);
    expect(sameClassOrBetter("SUV", "HOVERCRAFT")).toBe(false);
    expect(sameClassOrBetter("HOVERCRAFT", "SUV")).toBe(false);
    expect(sameClassOrBetter("hovercraft", "HOVERCRAFT")).toBe(true);
    // A booking whose type is unknown has nothing to compare with.
    expect(sameClassOrBetter(undefined, "SEDAN")).toBe(true);
  });
});
