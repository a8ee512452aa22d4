import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { PackagedCurrencyDirectory } from "../../../adapters/currencies/directory";
import type { QuotableVehicle } from "../../../domain/fleet/entry";
import { buildQuote, type QuoteBuildRequest } from "../../../domain/pricing/quote";
import { quoteServingSet } from "../../../domain/pricing/quote-set";
import { joinedSets, servingSetOf } from "../../../domain/fleet/serving-set";

// quoteServingSet (counts per rate, the cut of the 20th option, only the kept vehicles read) against the plain
// buildQuote over every serving vehicle: over random fleets with several rates, currencies and types, the same answer.
const currencies = new PackagedCurrencyDirectory();
const TYPES = ["SEDAN", "SUV", "VAN", "BUS"];
// Few rate values, so many vehicles tie on the fee (the tie goes by code) and the cut falls inside a group.
const MINIMUMS = ["0", "75.00", "80.00", "120.50", "5000", "12.345"];
const HOURLIES = ["65.00", "65.50", "90.00", "100.00", "0.99", "7000", "1.234"];
const CURRENCIES = ["USD", "USD", "USD", "USD", "EUR", "JPY", "BHD", "GBP"];

const vehicle = fc.record({
  type: fc.constantFrom(...TYPES),
  maxPassengers: fc.integer({ min: 1, max: 8 }),
  maxLuggage: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
  minimumRate: fc.constantFrom(...MINIMUMS),
  hourlyRate: fc.constantFrom(...HOURLIES),
  currency: fc.constantFrom(...CURRENCIES),
  active: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  image: fc.boolean(),
});

const request = fc.record({
  passengerCount: fc.integer({ min: 1, max: 6 }),
  luggageCount: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  tripMinutes: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
  km: fc.integer({ min: 0, max: 300 }),
  preferredVehType: fc.option(fc.constantFrom(...TYPES, "LIMO"), { nil: undefined }),
  country: fc.option(fc.constantFrom("US", "JP", "BH", "FR", "GB", "CH"), { nil: undefined }),
});

describe("quoteServingSet against buildQuote", () => {
  test("the same options in the same order, currency and warnings, whole or split in two sets", () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(vehicle, { maxLength: 30 }), fc.array(vehicle, { minLength: 40, maxLength: 300 })), request, fc.nat(), (specs, r, split) => {
        // Codes in a shuffled order (so the input order is not the code order).
        const fleet: QuotableVehicle[] = specs.map((s, i) => ({
          slug: `v-${(i * 7919) % 1000}-${i}`,
          type: s.type,
          name: `Car ${i}`,
          description: "",
          imageUrl: s.image ? `https://img.example/${i}.jpg` : null,
          maxPassengers: s.maxPassengers,
          maxLuggage: s.maxLuggage,
          minimumRate: s.minimumRate,
          hourlyRate: s.hourlyRate,
          currency: s.currency,
          active: s.active,
        }));
        const req: QuoteBuildRequest = {
          passengerCount: r.passengerCount,
          luggageCount: r.luggageCount,
          pickup: { lat: 40, lon: -74 },
          dropOff: { lat: 40, lon: -74 + r.km / 85 },
          now: 1_790_000_000,
          ...(r.tripMinutes !== undefined ? { tripMinutes: r.tripMinutes } : {}),
          ...(r.preferredVehType !== undefined ? { preferredVehType: r.preferredVehType } : {}),
          ...(r.country !== undefined ? { country: r.country } : {}),
        };
        const expected = buildQuote(fleet, req, currencies);
        expect(quoteServingSet(servingSetOf(fleet), req, currencies)).toEqual(expected);
        const at = fleet.length === 0 ? 0 : split % (fleet.length + 1);
        expect(quoteServingSet(joinedSets(servingSetOf(fleet.slice(0, at)), servingSetOf(fleet.slice(at))), req, currencies)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  test("more than 20 vehicles at the cheapest fee: the first 20 codes, as buildQuote keeps them", () => {
    const fleet: QuotableVehicle[] = Array.from({ length: 60 }, (_, i) => ({
      slug: `car-${String((i * 37) % 60).padStart(2, "0")}`,
      type: i % 2 === 0 ? "SUV" : "SEDAN",
      name: `Car ${i}`,
      description: "",
      imageUrl: null,
      maxPassengers: 4,
      maxLuggage: 2,
      minimumRate: "75.00",
      hourlyRate: "65.00",
      currency: "USD",
      active: true,
    }));
    const req: QuoteBuildRequest = { passengerCount: 2, luggageCount: undefined, pickup: undefined, dropOff: undefined, now: 1_790_000_000, preferredVehType: "SUV" };
    const got = quoteServingSet(servingSetOf(fleet), req, currencies);
    expect(got).toEqual(buildQuote(fleet, req, currencies));
    // 20 of the preferred type's 30, the first codes.
    expect(got.options.map((o) => o.vehType)).toEqual(Array(20).fill("SUV"));
    expect(got.options.map((o) => o.code)).toEqual([...got.options.map((o) => o.code)].sort());
  });
});
