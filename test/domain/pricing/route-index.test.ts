import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import type { RateCard, ZoneInput } from "../../../domain/pricing/card";
import { cardQuote, compileCard, type CompiledCard, type PricedTrip } from "../../../domain/pricing/card-pricing";
import { benchRateCard } from "../../../bench/rate-card-fixture";
import { validateRateCard } from "../../../domain/pricing/card";

// docs/performance.md#rate-cards-issue-35: the per-card route index only narrows which routes a trip tests; the route that applies, and so
// every price and breakdown, is the one testing every route in the card's order gives.
const airports = new PackagedAirportDirectory();
const lookup = (iata: string) => airports.lookup(iata);
/** The same card testing every route, as before the index. */
const everyRoute = (card: CompiledCard): CompiledCard => ({
  ...card,
  routeIndex: { candidates: () => card.routes.map((_, k) => k), cheapest: () => Math.min(...card.routes.map((r) => r.rule.price)) },
});

const ANCHORS: Array<[number, number]> = [
  [40.6413, -73.7781], // JFK
  [40.758, -73.9855],
  [51.47, -0.4543],
  [-33.9, 151.2],
  [0, 179.95],
  [0, -179.95],
  [88.5, 10],
  [-89.2, -45],
  [64.1, -21.9],
  [0, 0],
];
const near = fc.tuple(fc.constantFrom(...ANCHORS), fc.double({ min: -0.6, max: 0.6, noNaN: true }), fc.double({ min: -0.6, max: 0.6, noNaN: true }))
  .map(([[lat, lon], a, b]) => ({ lat: Math.max(-90, Math.min(90, lat + a)), lon: Math.max(-180, Math.min(180, lon + b)) }));
const zone: fc.Arbitrary<ZoneInput> = fc.oneof(
  fc.constantFrom<ZoneInput>({ airport: "JFK" }, { airport: "LHR" }, { airport: "SYD" }),
  fc.tuple(near, fc.double({ min: 0, max: 500, noNaN: true })).map(([p, radiusKm]) => ({ lat: p.lat, lon: p.lon, radiusKm })),
  fc.tuple(near, fc.double({ min: 0.01, max: 3, noNaN: true }), fc.double({ min: 0.01, max: 3, noNaN: true })).map(([p, w, h]) => ({
    polygon: [
      [p.lon - w, p.lat - h],
      [p.lon + w, p.lat - h],
      [p.lon, p.lat + h],
      [p.lon - w, p.lat - h],
    ] as Array<[number, number]>,
  })),
  fc.constant<ZoneInput>({ polygon: [[-179, -60], [179, -60], [179, 75], [-179, 75], [-179, -60]] }),
);
const route = fc.record({ from: zone, to: zone, bothWays: fc.boolean(), sedanOnly: fc.boolean() });

describe("a rate card's route index (domain/pricing/route-index.ts)", () => {
  test("prices every trip as testing every route in order does (random zones near poles, the antimeridian, airports)", () => {
    const tripList = fc.array(fc.tuple(near, near, fc.boolean()), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(route, { minLength: 1, maxLength: 30 }), tripList, (routes, trips) => {
        const card: RateCard = {
          currency: "USD",
          routes: routes.map((r, k) => ({
            ...{ id: `r${k}`, from: r.from, to: r.to, bothWays: r.bothWays, price: `${100 + k}.00` },
            ...(r.sedanOnly ? { vehTypes: ["SEDAN"] } : {}),
          })),
          distance: [],
          hourly: [],
          surcharges: [],
          extras: [],
        } as unknown as RateCard;
        const compiled = compileCard(card, 2, lookup);
        const brute = everyRoute(compiled);
        for (const [pickup, dropOff, atJfk] of trips) {
          const airports = atJfk ? { pickupAirport: "JFK", dropOffAirport: "LHR" } : {};
          const trip: PricedTrip = { pickup, dropOff, hourly: false, quarterHours: 4, extras: [], ...airports };
          for (const type of ["SEDAN", "SUV"]) expect(cardQuote(compiled, trip).price(type, 5000)).toEqual(cardQuote(brute, trip).price(type, 5000));
        }
      }),
      { numRuns: 300 },
    );
  });

  test("the bench card: a pickup tests a few routes, not all 125, and prices as before", () => {
    const card = validateRateCard(benchRateCard(), { minorUnit: () => 2, defaultCurrency: undefined, airportKnown: (iata) => lookup(iata) !== undefined });
    const compiled = compileCard(card, 2, lookup);
    const jfk = lookup("JFK")!;
    expect(compiled.routeIndex.candidates(jfk, "JFK").length).toBeLessThan(20);
    for (const [pickup, dropOff, airport] of [
      [jfk, { lat: 40.758, lon: -73.9855 }, "JFK"],
      [{ lat: 40.758, lon: -73.9855 }, jfk, undefined],
      [{ lat: 10, lon: 10 }, { lat: -89, lon: 0 }, undefined],
    ] as const) {
      const at = airport ? { pickupAirport: airport } : {};
      const trip: PricedTrip = { pickup, dropOff, hourly: false, quarterHours: 4, extras: [], ...at, localTime: "2026-12-24T23:30" };
      for (const type of ["SEDAN", "SUV", "VAN"])
        expect(cardQuote(compiled, trip).price(type, 5000)).toEqual(cardQuote(everyRoute(compiled), trip).price(type, 5000));
    }
  });
});
