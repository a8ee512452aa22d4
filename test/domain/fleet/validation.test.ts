import { describe, expect, test } from "bun:test";
import { rateToDecimal, validateFleetEntry } from "../../../domain/fleet/validation";

const known = new Set(["JFK", "LGA", "LHR"]);
const options = { isKnownAirport: (c: string) => known.has(c) };
const valid = { type: "suv", name: " Cadillac Escalade ", maxPassengers: 6, minimum_rate: 95, hourly_rate: 85.5 };

function fieldsOf(input: Record<string, unknown>, prefix?: string): string[] {
  const r = validateFleetEntry(input, { ...options, fieldPrefix: prefix });
  return r.ok ? [] : r.errors.map((e) => e.field);
}

describe("fleet entry validation", () => {
  test("a minimal entry is normalised with the defaults", () => {
    const r = validateFleetEntry(valid, options);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      type: "SUV",
      name: "Cadillac Escalade",
      description: "",
      imageUrl: null,
      maxPassengers: 6,
      maxLuggage: null,
      lat: null,
      lon: null,
      airports: [],
      minimumRate: "95.00",
      hourlyRate: "85.50",
      currency: "USD",
      active: true,
      externalId: null,
    });
  });

  test("every failing field is reported at once", () => {
    expect(
      fieldsOf({ type: "su v", name: "", description: "x".repeat(2001), imageUrl: "ftp://x.example/a.jpg", maxPassengers: 0, maxLuggage: -1, minimum_rate: 1.234, hourly_rate: -1, currency: "usd1", active: "yes" }),
    ).toEqual(["type", "name", "description", "imageUrl", "maxPassengers", "maxLuggage", "minimum_rate", "hourly_rate", "currency", "active"]);
  });

  test("required fields", () => {
    expect(fieldsOf({})).toEqual(["type", "name", "maxPassengers", "minimum_rate", "hourly_rate"]);
  });

  test("name is at most 200 characters", () => {
    expect(fieldsOf({ ...valid, name: "n".repeat(200) })).toEqual([]);
    expect(fieldsOf({ ...valid, name: "n".repeat(201) })).toEqual(["name"]);
  });

  test("lat and lon come together and in range", () => {
    expect(fieldsOf({ ...valid, lat: 40.6 })).toEqual(["lon"]);
    expect(fieldsOf({ ...valid, lon: -73.7 })).toEqual(["lat"]);
    expect(fieldsOf({ ...valid, lat: 91, lon: 0 })).toEqual(["lat"]);
    expect(fieldsOf({ ...valid, lat: 0, lon: -181 })).toEqual(["lon"]);
    expect(fieldsOf({ ...valid, lat: -90, lon: 180 })).toEqual([]);
    expect(fieldsOf({ ...valid, lat: null, lon: null })).toEqual([]);
  });

  test("maxPassengers and maxLuggage are whole numbers; luggage may be unknown (null)", () => {
    expect(fieldsOf({ ...valid, maxPassengers: 2.5 })).toEqual(["maxPassengers"]);
    expect(fieldsOf({ ...valid, maxPassengers: "6" })).toEqual(["maxPassengers"]);
    expect(fieldsOf({ ...valid, maxLuggage: 0 })).toEqual([]);
    expect(fieldsOf({ ...valid, maxLuggage: null })).toEqual([]);
  });

  test("image URLs must be http or https", () => {
    expect(fieldsOf({ ...valid, imageUrl: "https://img.example/a.jpg" })).toEqual([]);
    expect(fieldsOf({ ...valid, imageUrl: "http://img.example/a.jpg" })).toEqual([]);
    expect(fieldsOf({ ...valid, imageUrl: "javascript:alert(1)" })).toEqual(["imageUrl"]);
    expect(fieldsOf({ ...valid, imageUrl: null })).toEqual([]);
  });

  test("airports are IATA codes of the directory, case-insensitive, de-duplicated; an unknown code is named", () => {
    const r = validateFleetEntry({ ...valid, airports: ["jfk", " LGA ", "JFK"] }, options);
    expect(r.ok && r.value.airports).toEqual(["JFK", "LGA"]);
    const bad = validateFleetEntry({ ...valid, airports: ["JFK", "XQZ", "12"] }, options);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors).toEqual([
      { field: "airports[2]", message: "must be a 3-letter IATA code" },
      { field: "airports", message: "unknown IATA code: XQZ" },
    ]);
  });

  test("currency is an active ISO 4217 code in capitals: eur, ABC, XAU and XTS are refused (issue 37 N13)", () => {
    const r = validateFleetEntry({ ...valid, currency: " EUR " }, options);
    expect(r.ok && r.value.currency).toBe("EUR");
    for (const currency of ["eur", "ABC", "ZZZ", "XAU", "XTS", "XXX", "USN", 978]) expect(fieldsOf({ ...valid, currency })).toEqual(["currency"]);
    for (const currency of ["JPY", "BHD", "XOF", "XCD", "XCG"]) expect(fieldsOf({ ...valid, hourly_rate: 85, currency })).toEqual([]);
  });

  test("a rate has at most its currency's minor unit's decimals: JPY 85.5 is refused naming the rate (issue 37 N13)", () => {
    expect(fieldsOf({ ...valid, currency: "JPY" })).toEqual(["hourly_rate"]);
    expect(fieldsOf({ ...valid, currency: "JPY", minimum_rate: 95.25 })).toEqual(["minimum_rate", "hourly_rate"]);
    const yen = validateFleetEntry({ ...valid, currency: "JPY", hourly_rate: 85.5 }, options);
    expect(!yen.ok && yen.errors[0].message).toBe("has 1 decimal; JPY has none");
    for (const currency of ["USD", "BHD", "EUR"]) expect(fieldsOf({ ...valid, hourly_rate: 85.55, currency })).toEqual([]);
  });

  test("a name other companies see refuses blank-looking and line-breaking characters; a description hidden ones (N12)", () => {
    const bad = ["\u2800\u2800", "Sedan\u2028Black", "Sedan\u2029Van", "\u3164", "Van\u202Egnp.exe"];
    for (const name of bad) expect(fieldsOf({ ...valid, name })).toEqual(["name"]);
    expect(fieldsOf({ ...valid, description: "Black\u202E SUV" })).toEqual(["description"]);
    expect(fieldsOf({ ...valid, name: "Mercedes-Benz V-Klasse – München", description: "Leather,\nWi-Fi" })).toEqual([]);
  });

  test("a field prefix names the row of an import", () => {
    expect(fieldsOf({ ...valid, maxPassengers: 0 }, "[12].")).toEqual(["[12].maxPassengers"]);
  });
});

describe("rates", () => {
  test("are JSON numbers ≥ 0 with at most 2 decimals, kept as decimal strings", () => {
    expect(rateToDecimal(0)).toBe("0.00");
    expect(rateToDecimal(125)).toBe("125.00");
    expect(rateToDecimal(125.5)).toBe("125.50");
    expect(rateToDecimal(0.07)).toBe("0.07");
    expect(rateToDecimal(1.005)).toBeUndefined();
    expect(rateToDecimal(-0.01)).toBeUndefined();
    expect(rateToDecimal(1e-7)).toBeUndefined();
    expect(rateToDecimal("12")).toBeUndefined();
    expect(rateToDecimal(Number.NaN)).toBeUndefined();
  });
});
