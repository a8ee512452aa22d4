import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import { PackagedCurrencyDirectory } from "../../../adapters/currencies/directory";
import type { RateCard } from "../../../domain/pricing/card";
import { quoteServingSetWithCard } from "../../../domain/pricing/card-set-quote";
import { quoteWithCard, type CardTripFacts } from "../../../domain/pricing/priced-quote";
import { compileCard } from "../../../domain/pricing/card-pricing";
import type { QuotableVehicle } from "../../../domain/fleet/entry";
import type { QuoteBuildRequest } from "../../../domain/pricing/quote";
import { joinedSets, servingSetOf } from "../../../domain/fleet/serving-set";

// docs/performance.md#rate-cards-issue-35: a QUOTE to a provider with a rate card is priced over the serving set's columns (each type and
// rate priced once, the 20th option's place found from counts). Over random fleets and cards it must give what
// quoteWithCard gives pricing every vehicle whole: the same options, order, breakdowns, currency and warnings.
const currencies = new PackagedCurrencyDirectory();
const airports = new PackagedAirportDirectory();
const TYPES = ["SEDAN", "SUV", "VAN", "BUS"];
// Few rate values, so many vehicles tie on the fee (the tie goes by code) and the cut falls inside a group.
const MINIMUMS = ["0", "75.00", "80.00", "120.50", "5000"];
const HOURLIES = ["0", "65.00", "90.00", "100.00", "0.99"];

const vehicle = fc.record({
  type: fc.constantFrom(...TYPES),
  maxPassengers: fc.integer({ min: 1, max: 8 }),
  minimumRate: fc.constantFrom(...MINIMUMS),
  hourlyRate: fc.constantFrom(...HOURLIES),
  currency: fc.constantFrom("USD", "USD", "USD", "EUR"),
  active: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
});
const typed = fc.option(fc.subarray(TYPES, { minLength: 1, maxLength: 2 }), { nil: undefined });
const price = fc.constantFrom("0.00", "45.00", "60.00", "95.00", "95.00", "150.00");
const card = fc.record({
  currency: fc.constantFrom("USD", "USD", "EUR"),
  minimumFare: fc.option(fc.constantFrom("50.00", "100.00", "0.00"), { nil: undefined }),
  distance: fc.array(
    fc.record({ base: price, includedKm: fc.constantFrom(0, 10), perKm: fc.constantFrom("0.00", "2.40"), vehTypes: typed, upToKm: fc.option(fc.constantFrom(20, 60), { nil: undefined }) }),
    { maxLength: 3 },
  ),
  hourly: fc.array(fc.record({ perHour: price, minimumHours: fc.constantFrom(0, 3), vehTypes: typed }), { maxLength: 2 }),
  routes: fc.array(fc.record({ price, vehTypes: typed }), { maxLength: 2 }),
  night: fc.option(fc.constantFrom({ percent: 20 }, { amount: "15.00" }), { nil: undefined }),
  childSeatMax: fc.option(fc.constantFrom(1, 3), { nil: undefined, freq: 4 }),
});

const request = fc.record({
  passengerCount: fc.integer({ min: 1, max: 6 }),
  tripMinutes: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
  km: fc.integer({ min: 0, max: 60 }),
  preferredVehType: fc.option(fc.constantFrom(...TYPES, "LIMO"), { nil: undefined }),
  night: fc.boolean(),
  hourly: fc.boolean(),
  // Stops near the pickup (inside the routes' zones) or far from it (outside them: no route, a longer road).
  stops: fc.array(fc.option(fc.constantFrom({ lat: 40.1, lon: -74 }, { lat: 41.5, lon: -74.2 }), { nil: undefined, freq: 8 }), { maxLength: 2 }),
  childSeats: fc.constantFrom(0, 0, 1, 2),
});

const noUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

describe("quoteServingSetWithCard against quoteWithCard", () => {
  test("the same options, order, breakdowns, currency and warnings, whole or split in two sets, pairs in a table or a map", () => {
    let unpricedSeen = 0;
    let fullQuotes = 0;
    const seen = { hourly: 0, stopsByDistance: 0, banded: 0, shortfall: 0 };
    const fleets = fc.oneof(fc.array(vehicle, { maxLength: 30 }), fc.array(vehicle, { minLength: 40, maxLength: 250 }));
    fc.assert(
      fc.property(fleets, card, request, fc.nat(), (specs, c, r, split) => {
        const fleet: QuotableVehicle[] = specs.map((s, i) => ({
          slug: `v-${(i * 7919) % 1000}-${i}`,
          type: s.type,
          name: `Car ${i}`,
          description: "",
          imageUrl: null,
          maxPassengers: s.maxPassengers,
          maxLuggage: null,
          minimumRate: s.minimumRate,
          hourlyRate: s.hourlyRate,
          currency: s.currency,
          active: s.active,
        }));
        const stored = {
          currency: c.currency,
          ...(c.minimumFare !== undefined ? { minimumFare: c.minimumFare } : {}),
          distance: c.distance.map((d, k) => noUndefined({ id: `d${k}`, ...d })),
          hourly: c.hourly.map((h, k) => noUndefined({ id: `h${k}`, ...h })),
          // Routes from the pickup's circle to the drop-off's: they hold every trip with a drop-off.
          routes: c.routes.map((x, k) =>
            noUndefined({ id: `r${k}`, from: { lat: 40, lon: -74, radiusKm: 1 }, to: { lat: 40, lon: -74, radiusKm: 80 }, bothWays: false, ...x }),
          ),
          surcharges: c.night ? [{ id: "night", kind: "night", from: "22:00", to: "06:00", ...c.night }] : [],
          extras: c.childSeatMax !== undefined ? [{ code: "CHILD_SEAT", name: "Child seat", price: "12.00", max: c.childSeatMax }] : [],
        } as unknown as RateCard;
        const compiled = compileCard(stored, 2, (iata) => airports.lookup(iata));
        const req: QuoteBuildRequest = {
          passengerCount: r.passengerCount,
          luggageCount: undefined,
          pickup: { lat: 40, lon: -74 },
          dropOff: { lat: 40, lon: -74 + r.km / 85 },
          ...(r.stops.length > 0 ? { stops: r.stops } : {}),
          now: 1_790_000_000,
          ...(r.tripMinutes !== undefined ? { tripMinutes: r.tripMinutes } : {}),
          ...(r.preferredVehType !== undefined ? { preferredVehType: r.preferredVehType } : {}),
          country: "US",
        };
        const extras = r.childSeats > 0 ? [{ code: "CHILD_SEAT", quantity: r.childSeats }] : [];
        const facts: CardTripFacts = { hourly: r.hourly, localTime: r.night ? "2028-03-01T23:30" : "2028-03-01T12:00", extras, stops: r.stops.length };
        const expected = quoteWithCard(fleet.filter((v) => v.active), req, facts, compiled, currencies);
        expect(quoteServingSetWithCard(servingSetOf(fleet), req, facts, compiled, currencies)).toEqual(expected);
        const at = fleet.length === 0 ? 0 : split % (fleet.length + 1);
        const joined = joinedSets(servingSetOf(fleet.slice(0, at)), servingSetOf(fleet.slice(at)));
        expect(quoteServingSetWithCard(joined, req, facts, compiled, currencies)).toEqual(expected);
        // Pairs counted in a map instead of a table: the same.
        expect(quoteServingSetWithCard(servingSetOf(fleet), req, facts, compiled, currencies, 0)).toEqual(expected);
        if (expected.warnings.some((w) => w.code === "UNPRICED_VEHICLES")) unpricedSeen++;
        if (expected.options.length === 20) fullQuotes++;
        for (const o of expected.options) {
          expect(o.breakdown!.reduce((sum, l) => sum + Number(l.amount.replace(".", "")), 0)).toBe(Number(o.fee.replace(".", "")));
          const base = o.breakdown![0].id ?? "";
          if (base.startsWith("h")) seen.hourly++;
          if (base.startsWith("d") && r.stops.some((x) => x?.lat === 41.5)) seen.stopsByDistance++;
          if (base.startsWith("d") && stored.distance.some((d) => d.upToKm !== undefined)) seen.banded++;
        }
        if (expected.warnings.some((w) => w.code === "EXTRA_NOT_OFFERED")) seen.shortfall++;
      }),
      { numRuns: 400 },
    );
    // The cases covered vehicles priced at 0 (left out) and quotes cut at 20 options.
    expect(unpricedSeen).toBeGreaterThan(10);
    expect(fullQuotes).toBeGreaterThan(10);
    // … hourly trips, trips with stops priced by distance, distance bands, extras a card offers too few of.
    for (const [what, n] of Object.entries(seen)) expect({ what, n: n > 10 }).toEqual({ what, n: true });
  });
});
