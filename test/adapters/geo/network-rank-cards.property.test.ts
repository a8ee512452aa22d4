import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import { PackagedCurrencyDirectory } from "../../../adapters/currencies/directory";
import { formatMinorUnits, minorUnitOf } from "../../../domain/currency";
import type { IndexRow } from "../../../domain/fleet/source";
import { greatCircleKm } from "../../../domain/geo";
import { chooseNetworkCurrency, rankNetworkOptions, type PricedVehicle } from "../../../domain/pricing/network-quote";
import { rankCircle } from "../../../domain/pricing/network-rank";
import { cardPricing, providerCard, type ProviderCard } from "../../../domain/pricing/network-cards";
import { cardRoadKm, compileCard, missingExtras, type PricedTrip } from "../../../domain/pricing/card-pricing";
import type { RateCard } from "../../../domain/pricing/card";
import { vehicleFeeMinorUnits } from "../../../domain/pricing/quote";
import { FeeConverter } from "../../../domain/fx/convert";
import { rowsSource } from "./sources";

// The network quote's ranking with rate cards (docs/performance.md#rate-cards-issue-35) takes providers by a lower bound of their fees and
// stops once no provider left could place an option among the 50 (rankCircle's offerByProvider). Held here to the
// plain way: every serving vehicle priced by its provider's card (the same pricer, cardPricing), ranked whole. Random
// cards on most providers (routes, distance, hourly rules with and without vehicle types, surcharges, minimum fares,
// rules pricing 0), in the quote's currency or another, with and without extras asked, across currencies too.

const HUB = { lat: 51.47, lon: -0.45 };
const PROVIDERS = Array.from({ length: 24 }, (_, i) => `C-${String.fromCharCode(65 + i)}`);
const TYPES = ["SEDAN", "SUV", "VAN"];
const currencies = new PackagedCurrencyDirectory();

const vehicle = fc.record({
  netid: fc.constantFrom(...PROVIDERS),
  dLat: fc.integer({ min: -8, max: 8 }).map((n) => n / 10),
  dLon: fc.integer({ min: -8, max: 8 }).map((n) => n / 10),
  type: fc.constantFrom(...TYPES),
  minimumRate: fc.constantFrom("0.00", "0.00", "40.00", "95.00"),
  hourlyRate: fc.constantFrom("0.00", "30.00", "60.00"),
  currency: fc.constantFrom("GBP", "GBP", "GBP", "GBP", "EUR", "USD"),
});
type Vehicle = typeof vehicle extends fc.Arbitrary<infer V> ? V : never;

const types = fc.option(fc.subarray(TYPES, { minLength: 1, maxLength: 2 }), { nil: undefined });
const amount = fc.constantFrom("0", "10.00", "45.00", "60.00", "95.00", "150.00");
const circle = fc.record({ dLat: fc.integer({ min: -5, max: 5 }), radiusKm: fc.constantFrom(5, 20, 60) }).map((c) => ({ lat: HUB.lat + c.dLat / 10, lon: HUB.lon, radiusKm: c.radiusKm }));
const card = fc.record({
  currency: fc.constantFrom("GBP", "GBP", "GBP", "EUR"),
  minimumFare: fc.option(fc.constantFrom("0", "50.00", "120.00"), { nil: undefined }),
  routes: fc.array(fc.record({ from: circle, to: circle, vehTypes: types, price: amount, bothWays: fc.boolean() }), { maxLength: 3 }),
  distance: fc.array(
    fc.record({ vehTypes: types, base: amount, includedKm: fc.constantFrom(0, 10), perKm: fc.constantFrom("0", "1.50", "2.40"), upToKm: fc.option(fc.constantFrom(15, 40, 90), { nil: undefined }) }),
    { maxLength: 3 },
  ),
  hourly: fc.array(fc.record({ vehTypes: types, perHour: amount, minimumHours: fc.constantFrom(0, 2) }), { maxLength: 2 }),
  night: fc.option(fc.record({ percent: fc.constantFrom(0, 20) }), { nil: undefined }),
  airport: fc.option(fc.constantFrom("0", "15.00"), { nil: undefined }),
  childSeat: fc.boolean(),
});
type CardSpec = typeof card extends fc.Arbitrary<infer C> ? C : never;

function rateCard(c: CardSpec): RateCard {
  return {
    currency: c.currency,
    ...(c.minimumFare !== undefined ? { minimumFare: c.minimumFare } : {}),
    routes: c.routes.map((r, i) => ({ id: `r${i}`, from: r.from, to: r.to, price: r.price, bothWays: r.bothWays, ...(r.vehTypes ? { vehTypes: r.vehTypes } : {}) })),
    distance: c.distance.map((r, i) => ({
      id: `d${i}`,
      base: r.base,
      includedKm: r.includedKm,
      perKm: r.perKm,
      ...(r.vehTypes ? { vehTypes: r.vehTypes } : {}),
      ...(r.upToKm !== undefined ? { upToKm: r.upToKm } : {}),
    })),
    hourly: c.hourly.map((r, i) => ({ id: `h${i}`, perHour: r.perHour, minimumHours: r.minimumHours, ...(r.vehTypes ? { vehTypes: r.vehTypes } : {}) })),
    surcharges: [
      ...(c.night ? [{ id: "night", kind: "night" as const, from: "22:00", to: "06:00", percent: c.night.percent }] : []),
      ...(c.airport !== undefined ? [{ id: "lhr", kind: "airportPickup" as const, airports: ["LHR"], amount: c.airport }] : []),
    ],
    extras: c.childSeat ? [{ code: "CHILD_SEAT", name: "Child seat", price: "12.00" }] : [],
  };
}

function row(slug: string, v: Vehicle): IndexRow {
  return {
    slug,
    netid: v.netid,
    type: v.type,
    name: `${v.type} ${slug}`,
    description: "",
    imageUrl: null,
    maxPassengers: 4,
    maxLuggage: 4,
    lat: HUB.lat + v.dLat,
    lon: HUB.lon + v.dLon,
    airports: [],
    minimumRate: v.minimumRate,
    hourlyRate: v.hourlyRate,
    currency: v.currency,
  };
}

describe("network quote ranking with rate cards", () => {
  test("providers taken by their bound give the options, order and unpriced count of pricing every vehicle", async () => {
    const seen = { full: 0, unpriced: 0, pruned: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(vehicle, { minLength: 200, maxLength: 800 }),
        fc.array(fc.option(card, { nil: undefined, freq: 5 }), { minLength: PROVIDERS.length, maxLength: PROVIDERS.length }),
        fc.array(fc.integer({ min: 15, max: 120 }), { minLength: PROVIDERS.length, maxLength: PROVIDERS.length }),
        fc.record({
          dropLat: fc.integer({ min: 0, max: 6 }).map((n) => n / 10),
          // Stops off the routes' line (east of the hub): the road runs through them, and no route holds the trip.
          stops: fc.array(fc.integer({ min: 1, max: 4 }).map((n) => ({ lat: HUB.lat + n / 10, lon: HUB.lon + n / 5 })), { maxLength: 2 }),
          hourly: fc.boolean(),
          quarterHours: fc.integer({ min: 4, max: 24 }),
          night: fc.boolean(),
          airport: fc.boolean(),
          extras: fc.boolean(),
          preferred: fc.option(fc.constantFrom(...TYPES), { nil: undefined, freq: 3 }),
          fx: fc.boolean(),
        }),
        async (fleetSpecs, cardSpecs, radii, trip) => {
          const fleet = fleetSpecs.map((v, i) => row(`v-${i}`, v));
          const index = new KdFleetSearchIndex({ source: rowsSource(() => fleet), useWorker: false, nodeSize: 4, compactAfterMs: 60_000 });
          try {
            await index.rebuildNow();
            const widest = Math.max(...radii);
            const m = index.circle({ centre: HUB, radiusKm: widest, minPassengers: 1 });
            const netidOf = (o: number) => m.netid(o);
            const byNetid = new Map(Array.from({ length: m.owners }, (_, o) => [m.netid(o), o]));
            const dropOff = { lat: HUB.lat + trip.dropLat, lon: HUB.lon };
            const priced: PricedTrip = {
              pickup: HUB,
              dropOff,
              ...(trip.stops.length > 0 ? { stops: trip.stops } : {}),
              roadKm: cardRoadKm(HUB, dropOff, trip.stops),
              ...(trip.airport ? { pickupAirport: "LHR" } : {}),
              hourly: trip.hourly,
              quarterHours: trip.quarterHours,
              localTime: trip.night ? "2027-01-05T23:30" : "2027-01-05T12:00",
              extras: trip.extras ? [{ code: "CHILD_SEAT", quantity: 1 }] : [],
            };
            // As leaveOutByCard hands them over: a provider whose card lacks an asked extra is not admitted.
            const cards = new Array<ProviderCard | undefined>(m.owners);
            const specOf = new Array<CardSpec | undefined>(m.owners);
            const prepared = new Set<number>();
            const rankTerms = { admitted: new Uint8Array(m.owners), radiusKm: new Float64Array(m.owners), preferredType: new Array<string | undefined>(m.owners) };
            PROVIDERS.forEach((netid, k) => {
              const o = byNetid.get(netid);
              if (o === undefined) return;
              rankTerms.radiusKm[o] = radii[k];
              rankTerms.preferredType[o] = k % 2 === 0 ? trip.preferred : undefined;
              rankTerms.admitted[o] = 1;
              const spec = cardSpecs[k];
              if (!spec) {
                if (trip.extras) rankTerms.admitted[o] = 0;
                return;
              }
              const c = providerCard(compileCard(rateCard(spec), minorUnitOf(currencies, spec.currency), () => undefined), priced);
              if (missingExtras(c.card, priced).length > 0) rankTerms.admitted[o] = 0;
              else {
                // Its pricer noted when prepared: a card the bound leaves out never is.
                cards[o] = { currency: c.currency, card: c.card, trip: c.trip, get quote() { prepared.add(o!); return c.quote; } };
                specOf[o] = spec;
              }
            });
            const fx = trip.fx ? new FeeConverter({ date: "2024-06-28", rates: { GBP: 0.8457, USD: 1.0705 } }, "GBP", currencies) : undefined;
            const got = rankCircle({
              matches: m,
              extras: [],
              netidOf,
              terms: rankTerms,
              quarterHours: trip.quarterHours,
              pickupCurrency: "GBP",
              currencies,
              cards,
              extrasAsked: trip.extras,
              ...(fx ? { fx } : {}),
            });

            // The plain way: every serving vehicle priced (each card prepared afresh), ranked whole.
            const serving = fleet.filter((v) => {
              const o = byNetid.get(v.netid)!;
              return rankTerms.admitted[o] === 1 && greatCircleKm(HUB.lat, HUB.lon, v.lat!, v.lon!) <= rankTerms.radiusKm[o];
            });
            const currency = fx ? undefined : chooseNetworkCurrency(serving.map((entry) => ({ entry, minorUnits: 1, fee: "", distanceKm: 0, preferred: false })), "GBP");
            const fresh = specOf.map((spec) => spec && providerCard(compileCard(rateCard(spec), minorUnitOf(currencies, spec.currency), () => undefined), priced));
            const pricing = cardPricing(fresh, currency, trip.extras);
            const all: PricedVehicle[] = [];
            let unpriced = 0;
            for (const entry of serving) {
              if (currency !== undefined && entry.currency !== currency) continue;
              const o = byNetid.get(entry.netid)!;
              const own = vehicleFeeMinorUnits(entry, trip.quarterHours, minorUnitOf(currencies, entry.currency));
              const units = pricing ? pricing.units(o, entry.type, own, entry.currency) : own;
              if (units < 0) continue;
              if (units === 0) {
                unpriced++;
                continue;
              }
              const rank = fx ? (fx.units(units, entry.currency) ?? 2 ** 50 + units) : units;
              const wanted = rankTerms.preferredType[o];
              all.push({ entry, minorUnits: rank, fee: formatMinorUnits(units, minorUnitOf(currencies, entry.currency)), distanceKm: greatCircleKm(HUB.lat, HUB.lon, entry.lat!, entry.lon!), preferred: wanted !== undefined && entry.type === wanted });
            }
            const names = new Map(PROVIDERS.map((p) => [p, p]));
            const expected = rankNetworkOptions(all, names).map((o) => ({ id: o.quoteOptionId, fee: o.fee, km: o.nearestKm }));
            const shown = got.chosen.map((v) => ({ id: `${v.entry.netid}:${v.entry.slug}`, fee: v.fee, km: Math.round(v.distanceKm * 10) / 10 }));
            expect(shown).toEqual(expected);
            expect(got.unpriced ?? 0).toBe(unpriced);
            if (expected.length === 50) seen.full++;
            if (unpriced > 0) seen.unpriced++;
            // A serving provider's card never prepared: the bound left it out.
            if (serving.some((v) => prepared.has(byNetid.get(v.netid)!) === false && cards[byNetid.get(v.netid)!] !== undefined)) seen.pruned++;
          } finally {
            index.close();
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(seen.full).toBeGreaterThan(10);
    expect(seen.unpriced).toBeGreaterThan(5);
    expect(seen.pruned).toBeGreaterThan(10);
  });
});

describe("network quote ranking with rate cards: exact ties", () => {
  test("providers equal in fee and distance to the 50th are still taken: the netid decides, whatever the owner numbers", () => {
    // 60 providers, one sedan each, all 5 km away at one card price; owner numbers run against the netid order (as an
    // overlay's owners do), so the providers taken last are the ones whose netids come first.
    const N = 60;
    const netid = (o: number) => `P-${String(N - 1 - o).padStart(2, "0")}`;
    const entry = (i: number) => ({
      slug: `car-${i}`, netid: netid(i), type: "SEDAN", name: "Sedan", description: "", imageUrl: null, maxPassengers: 4, maxLuggage: 4,
      minimumRate: "100.00", hourlyRate: "50.00", currency: "GBP", lat: HUB.lat, lon: HUB.lon,
    });
    const m = {
      count: N,
      owner: Uint32Array.from({ length: N }, (_, i) => i),
      rate: new Uint32Array(N),
      distanceKm: new Float64Array(N).fill(5),
      owners: N,
      rates: 1,
      netid,
      minimumRate: () => "100.00",
      hourlyRate: () => "50.00",
      currency: () => "GBP",
      slug: (i: number) => `car-${i}`,
      type: () => "SEDAN",
      entry,
    };
    const stored: RateCard = { currency: "GBP", routes: [], distance: [{ id: "km", base: "70.00", includedKm: 0, perKm: "0" }], hourly: [], surcharges: [], extras: [] };
    const trip: PricedTrip = { pickup: HUB, dropOff: { lat: HUB.lat + 0.1, lon: HUB.lon }, hourly: false, quarterHours: 4, extras: [] };
    const cards = Array.from({ length: N }, () => providerCard(compileCard(stored, 2, () => undefined), trip));
    const got = rankCircle({
      matches: m,
      extras: [],
      netidOf: netid,
      terms: { admitted: new Uint8Array(N).fill(1), radiusKm: new Float64Array(N).fill(50), preferredType: new Array(N) },
      quarterHours: 4,
      pickupCurrency: "GBP",
      currencies,
      cards,
    });
    expect(got.chosen.map((v) => v.entry.netid)).toEqual(Array.from({ length: 50 }, (_, k) => `P-${String(k).padStart(2, "0")}`));
    expect(new Set(got.chosen.map((v) => v.fee))).toEqual(new Set(["70.00"]));
  });
});
