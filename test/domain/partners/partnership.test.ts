import { describe, expect, test } from "bun:test";
import { partnerSide, translateVehicleType, validateVehicleTypeMap, type Partnership } from "../../../domain/partners/partnership";

describe("vehicle-type maps", () => {
  test("keys and values are trimmed and upper-cased; a mapped type translates in any case, an unmapped one does not", () => {
    const checked = validateVehicleTypeMap({ " suv_lux": "suv ", "VAN-12": "SPRINTER" });
    expect(checked).toEqual({ ok: true, map: { SUV_LUX: "SUV", "VAN-12": "SPRINTER" } });
    const map = checked.ok ? checked.map : {};
    expect(translateVehicleType(map, " Suv_Lux ")).toBe("SUV");
    expect(translateVehicleType(map, "LIMO")).toBeUndefined();
    expect(translateVehicleType(map, "constructor")).toBeUndefined();
    expect(translateVehicleType(undefined, "SUV_LUX")).toBeUndefined();
  });

  test("refuses non-objects, non-string values, empty or long codes and keys that repeat once normalised", () => {
    for (const input of [null, "SUV", ["SUV"], 3]) expect(validateVehicleTypeMap(input).ok).toBe(false);
    const bad = validateVehicleTypeMap({ A: 1, "": "SUV", B: "", C: "X".repeat(51), d: "SUV", D: "VAN", "E F": "SUV" });
    expect(bad.ok ? [] : bad.errors.map((e) => e.field)).toEqual(["A", "", "B", "C", "D", "E F"]);
    expect(validateVehicleTypeMap(Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`T${i}`, "SUV"]))).ok).toBe(false);
  });
});

describe("a partnership as each side sees it", () => {
  const p: Partnership = { companies: ["ACME", "BOOKWELL"], requestedBy: "BOOKWELL", state: "pending", createdAt: 0, acceptedAt: null };
  test("pending (outgoing for the side that asked, incoming for the other), active for both once accepted", () => {
    expect(partnerSide(p, "bookwell")).toEqual({ partner: "ACME", status: "pending", direction: "outgoing" });
    expect(partnerSide(p, "ACME")).toEqual({ partner: "BOOKWELL", status: "pending", direction: "incoming" });
    expect(partnerSide({ ...p, state: "active" }, "ACME")).toEqual({ partner: "BOOKWELL", status: "active" });
  });
});
