import { describe, expect, test } from "bun:test";
import type { FleetEntry } from "../../../domain/fleet/entry";
import { buildQuote, chooseQuoteCurrency, estimatedQuarterHours, vehicleFeeCents, vehicleFeeMinorUnits, type QuoteBuildRequest } from "../../../domain/pricing/quote";
import { PackagedCurrencyDirectory } from "../../../adapters/currencies/directory";
import { distanceKm } from "../../../domain/trips/places";

const NOW = 1_790_000_000;

function entry(slug: string, over: Partial<FleetEntry> = {}): FleetEntry {
  return {
    slug, netid: "ACME", type: "SEDAN", name: `Car ${slug}`, description: "", imageUrl: null, maxPassengers: 4, maxLuggage: 4,
    lat: null, lon: null, airports: [], minimumRate: "0", hourlyRate: "100.00", currency: "USD", active: true, createdAt: 0, updatedAt: 0, ...over,
  };
}
const base = { passengerCount: 1, luggageCount: undefined, pickup: undefined, dropOff: undefined, now: NOW };
const currencies = new PackagedCurrencyDirectory();
const buildQuoteOptions = (fleet: FleetEntry[], request: QuoteBuildRequest) => buildQuote(fleet, request, currencies).options;

describe("quote options", () => {
  test("hours: at least 1 h, 1 h when a position is unknown, rounded up to ¼ h from distance × 1.3 at 50 km/h", () => {
    const a = { lat: 0, lon: 0 };
    expect(estimatedQuarterHours(undefined, a)).toBe(4);
    expect(estimatedQuarterHours(a, a)).toBe(4);
    // Pick a point whose road time is just over 2 h: 2 h × 50 km/h / 1.3 ≈ 76.92 km; go 80 km east on the equator.
    const b = { lat: 0, lon: 80 / 111.195 };
    const hours = (distanceKm(a, b) * 1.3) / 50;
    expect(hours).toBeGreaterThan(2);
    expect(hours).toBeLessThan(2.25);
    expect(estimatedQuarterHours(a, b)).toBe(9);
    // Through a stop 80 km past b and back: three times the road, 6.2 h → 6.25 h; a stop nothing placed adds no leg.
    const c = { lat: 0, lon: 160 / 111.195 };
    expect(estimatedQuarterHours(a, b, [c])).toBe(Math.ceil(((3 * distanceKm(a, b) * 1.3) / 50) * 4));
    expect(estimatedQuarterHours(a, b, [undefined])).toBe(9);
  });

  test("fee = max(minimum rate, hourly rate × hours), in cents, hourly part rounded half up", () => {
    expect(vehicleFeeCents({ minimumRate: "0", hourlyRate: "100.00" }, 9)).toBe(22500);
    expect(vehicleFeeCents({ minimumRate: "300.00", hourlyRate: "100.00" }, 9)).toBe(30000);
    expect(vehicleFeeCents({ minimumRate: "0", hourlyRate: "0.99" }, 5)).toBe(124); // 123.75 → 124
  });

  test("capacity filters, luggage filter only when specified, unknown luggage capacity only without a requirement", () => {
    const fleet = [entry("small", { maxPassengers: 2 }), entry("unknown-bags", { maxLuggage: null }), entry("big", { maxPassengers: 8, maxLuggage: 10 }), entry("off", { active: false })];
    expect(buildQuoteOptions(fleet, { ...base, passengerCount: 3 }).map((o) => o.code)).toEqual(["big", "unknown-bags"]);
    expect(buildQuoteOptions(fleet, { ...base, passengerCount: 1, luggageCount: 5 }).map((o) => o.code)).toEqual(["big"]);
    expect(buildQuoteOptions(fleet, { ...base, passengerCount: 1, luggageCount: 0 }).map((o) => o.code)).toEqual(["big", "small"]);
  });

  test("one option per entry with the spec fields; luggageCount omitted when the capacity is unknown", () => {
    const [known, unknown] = buildQuoteOptions(
      [entry("a", { name: "Sprinter", description: "12 seats", type: "SPRINTER", maxPassengers: 12, maxLuggage: 12, imageUrl: "https://x.example/a.jpg", minimumRate: "240.00" }), entry("b", { maxLuggage: null, minimumRate: "260" })],
      base,
    );
    expect(known).toEqual({
      type: "OTHER", code: "a", name: "Sprinter", description: "12 seats", fee: "240.00", currency: "USD", vehType: "SPRINTER",
      passengerCount: "12", luggageCount: "12", images: ["https://x.example/a.jpg"], validUntil: "2026-09-22T14:13:20Z",
    });
    expect(unknown.fee).toBe("260.00");
    expect("luggageCount" in unknown).toBe(false);
    expect(unknown.images).toEqual([]);
    expect(Date.parse(known.validUntil) / 1000).toBe(NOW + 24 * 3600);
  });

  test("cheapest first, ties by code, at most 20", () => {
    const fleet = Array.from({ length: 30 }, (_, i) => entry(`car-${String(i).padStart(2, "0")}`, { minimumRate: String(300 - (i % 10) * 10) }));
    const options = buildQuoteOptions(fleet, base);
    expect(options).toHaveLength(20);
    const fees = options.map((o) => Number(o.fee));
    expect(fees).toEqual([...fees].sort((a, b) => a - b));
    expect(options.slice(0, 3).map((o) => o.code)).toEqual(["car-09", "car-19", "car-29"]);
  });

  test("a preferred provider type puts its options first, each group cheapest first, before the cap of 20", () => {
    const fleet = [
      ...Array.from({ length: 25 }, (_, i) => entry(`sedan-${String(i).padStart(2, "0")}`, { hourlyRate: "50.00" })),
      entry("suv-dear", { type: "SUV", hourlyRate: "300.00" }),
      entry("suv-cheap", { type: "SUV", hourlyRate: "200.00" }),
    ];
    const options = buildQuoteOptions(fleet, { ...base, preferredVehType: "SUV" });
    expect(options).toHaveLength(20);
    expect(options.slice(0, 3).map((o) => o.code)).toEqual(["suv-cheap", "suv-dear", "sedan-00"]);
    expect(buildQuoteOptions(fleet, base).some((o) => o.vehType === "SUV")).toBe(false);
  });
});

describe("one currency per quote, in its minor unit", () => {
  test("minor units: JPY whole yen, BHD three decimals, USD cents; each rounded half up", () => {
    expect(vehicleFeeMinorUnits({ minimumRate: "0", hourlyRate: "5000" }, 5, 0)).toBe(6250);
    expect(vehicleFeeMinorUnits({ minimumRate: "0", hourlyRate: "0.99" }, 5, 3)).toBe(1238); // 1.2375 → 1.238
    expect(vehicleFeeMinorUnits({ minimumRate: "0", hourlyRate: "0.99" }, 5, 2)).toBe(124);
    expect(vehicleFeeMinorUnits({ minimumRate: "12.5", hourlyRate: "1" }, 4, 3)).toBe(12500);
    const jpy = buildQuote([entry("j", { currency: "JPY", hourlyRate: "5000" })], base, currencies);
    expect(jpy.options[0].fee).toBe("5000");
    const bhd = buildQuote([entry("b", { currency: "BHD", hourlyRate: "12.5" })], base, currencies);
    expect(bhd.options[0].fee).toBe("12.500");
    expect(bhd.currency).toBe("BHD");
  });

  test("the pickup country's currency when some vehicle prices in it, else the most used one; the rest counted in a warning", () => {
    const fleet = [entry("a", { currency: "USD" }), entry("b", { currency: "EUR" }), entry("c", { currency: "EUR" }), entry("d", { currency: "GBP" })];
    expect(chooseQuoteCurrency(fleet, "US", currencies)).toBe("USD");
    expect(chooseQuoteCurrency(fleet, "JP", currencies)).toBe("EUR");
    expect(chooseQuoteCurrency(fleet, undefined, currencies)).toBe("EUR");
    const quote = buildQuote(fleet, { ...base, country: "US" }, currencies);
    expect(quote.options.map((o) => o.code)).toEqual(["a"]);
    expect(quote.warnings).toEqual([{ code: "OTHER_CURRENCIES_LEFT_OUT", message: expect.stringContaining("USD"), count: 3, currencies: ["EUR", "GBP"] }]);
  });

  test("no serving vehicle: no options, no currency, NO_VEHICLE_NEAR_PICKUP", () => {
    expect(buildQuote([], base, currencies)).toEqual({ options: [], currency: null, warnings: [{ code: "NO_VEHICLE_NEAR_PICKUP", message: expect.any(String) }] });
  });
});
