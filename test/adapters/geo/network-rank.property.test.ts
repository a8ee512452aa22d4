import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import { PackagedCurrencyDirectory } from "../../../adapters/currencies/directory";
import { formatMinorUnits, minorUnitOf } from "../../../domain/currency";
import type { IndexRow } from "../../../domain/fleet/source";
import { greatCircleKm } from "../../../domain/geo";
import { chooseNetworkCurrency, networkOptionsOf, rankNetworkOptions, type OptionEntry, type PricedVehicle } from "../../../domain/pricing/network-quote";
import { rankCircle, type ExtraVehicle } from "../../../domain/pricing/network-rank";
import { vehicleFeeMinorUnits } from "../../../domain/pricing/quote";
import { FeeConverter } from "../../../domain/fx/convert";
import { rowsSource } from "./sources";

// The network quote's fast ranking over the index's columns (rankCircle) against the plain one: every serving
// vehicle priced and ranked whole (chooseNetworkCurrency, rankNetworkOptions), over random fleets of several
// providers (some changed since the last build, so answered from the overlay), rates, currencies, radii, admission
// and partner maps of preferred types. Positions and rates on coarse grids, so equal prices and distances are common.

const HUB = { lat: 40.64, lon: -73.78 };
const PROVIDERS = Array.from({ length: 20 }, (_, i) => `P-${String.fromCharCode(65 + i)}`);
const TYPES = ["SEDAN", "SUV", "VAN"];
const MINIMUMS = ["0.00", "50.00", "75.50", "120.00", "5000.00"];
const HOURLIES = ["10.00", "40.25", "65.00", "99.99"];
const CURRENCIES = ["USD", "USD", "USD", "USD", "USD", "USD", "USD", "EUR", "JPY", "BHD"];
const currencies = new PackagedCurrencyDirectory();

const vehicle = fc.record({
  netid: fc.constantFrom(...PROVIDERS),
  dLat: fc.integer({ min: -12, max: 12 }).map((n) => n / 10),
  dLon: fc.integer({ min: -12, max: 12 }).map((n) => n / 10),
  type: fc.constantFrom(...TYPES),
  maxPassengers: fc.integer({ min: 1, max: 8 }),
  maxLuggage: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
  minimumRate: fc.constantFrom(...MINIMUMS),
  hourlyRate: fc.constantFrom(...HOURLIES),
  currency: fc.constantFrom(...CURRENCIES),
});
type Vehicle = typeof vehicle extends fc.Arbitrary<infer V> ? V : never;

const provider = fc.record({
  radiusKm: fc.integer({ min: 1, max: 250 }).map((km) => (km < 60 && km % 3 !== 0 ? km + 100 : km)),
  admitted: fc.integer({ min: 0, max: 5 }).map((n) => n > 0),
  preferredType: fc.option(fc.constantFrom(...TYPES), { nil: undefined, freq: 4 }),
});
type Provider = typeof provider extends fc.Arbitrary<infer P> ? P : never;

function row(slug: string, v: Vehicle): IndexRow {
  return {
    slug,
    netid: v.netid,
    type: v.type,
    name: `${v.type} ${slug}`,
    description: `a ${v.type.toLowerCase()}`,
    imageUrl: slug.endsWith("0") ? null : `https://img.example/${slug}.jpg`,
    maxPassengers: v.maxPassengers,
    maxLuggage: v.maxLuggage,
    lat: HUB.lat + v.dLat,
    lon: HUB.lon + v.dLon,
    airports: [],
    minimumRate: v.minimumRate,
    hourlyRate: v.hourlyRate,
    currency: v.currency,
  };
}

const fits = (e: Pick<OptionEntry, "maxPassengers" | "maxLuggage">, pax: number, luggage: number | undefined) =>
  e.maxPassengers >= pax && (luggage === undefined || (e.maxLuggage !== null && e.maxLuggage >= luggage));

describe("network quote ranking over the index's columns", () => {
  test("gives the plain ranking's options, order, currency and left-out count", async () => {
    // How often the cases reached the 50-option cap, held a preferred type, left vehicles out (the test covers them).
    const seen = { full: 0, fullUnmapped: 0, preferred: 0, leftOut: 0, mixed: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(vehicle, { minLength: 150, maxLength: 600 }),
        fc.array(vehicle, { maxLength: 20 }),
        fc.array(fc.record({ v: vehicle, located: fc.boolean(), farKm: fc.integer({ min: 0, max: 900 }) }), { maxLength: 6 }),
        fc.array(provider, { minLength: PROVIDERS.length, maxLength: PROVIDERS.length }),
        fc.record({
          pax: fc.integer({ min: 1, max: 3 }),
          luggage: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
          quarterHours: fc.integer({ min: 4, max: 40 }),
          pickupCurrency: fc.constantFrom(undefined, "USD", "JPY", "GBP"),
          dLat: fc.integer({ min: -5, max: 5 }).map((n) => n / 10),
          // Half the cases without any partner map: then the fast path offers the cheapest first and stops early.
          mapped: fc.boolean(),
        }),
        async (built, changed, extraSpecs, providerList, trip) => {
          const fleet = new Map<string, IndexRow>();
          built.forEach((v, i) => fleet.set(`v-${i}`, row(`v-${i}`, v)));
          const index = new KdFleetSearchIndex({
            source: rowsSource(
              () => [...fleet.values()],
              (slugs) => slugs.flatMap((s) => (fleet.has(s) ? [fleet.get(s)!] : [])),
            ),
            useWorker: false,
            nodeSize: 4,
            compactAfterMs: 60_000,
          });
          try {
            await index.rebuildNow();
            // Changes since the build: new vehicles, and some built ones changed or removed (the overlay answers).
            changed.forEach((v, i) => {
              const slug = i % 3 === 0 && built.length > 0 ? `v-${(i * 7) % built.length}` : `w-${i}`;
              if (i % 5 === 4) fleet.delete(slug);
              else fleet.set(slug, row(slug, v));
              index.fleetChanged([slug]);
            });
            await index.whenFresh();

            const terms = new Map(PROVIDERS.map((p, i) => [p, trip.mapped ? providerList[i] : { ...providerList[i], preferredType: undefined }] as [string, Provider]));
            const widest = Math.max(...providerList.map((p) => p.radiusKm));
            const centre = { lat: HUB.lat + trip.dLat, lon: HUB.lon };

            // The plain way: every serving vehicle priced in its currency, then currency, ranking.
            const priced = (entry: OptionEntry, distanceKm: number): PricedVehicle => {
              const digits = minorUnitOf(currencies, entry.currency);
              const units = vehicleFeeMinorUnits(entry, trip.quarterHours, digits);
              const wanted = terms.get(entry.netid)!.preferredType;
              return { entry, minorUnits: units, fee: formatMinorUnits(units, digits), distanceKm, preferred: wanted !== undefined && entry.type === wanted };
            };
            const all: PricedVehicle[] = [];
            for (const e of fleet.values()) {
              const t = terms.get(e.netid)!;
              const d = greatCircleKm(centre.lat, centre.lon, e.lat!, e.lon!);
              if (t.admitted && d <= widest && d <= t.radiusKm && fits(e, trip.pax, trip.luggage)) all.push(priced(e, d));
            }
            const extraEntries = extraSpecs.map(({ v, located, farKm }, i) => ({ entry: { ...row(`x-${i}`, v), lat: null, lon: null } as OptionEntry, distanceKm: located ? farKm : 0 }));
            for (const x of extraEntries) if (terms.get(x.entry.netid)!.admitted && fits(x.entry, trip.pax, trip.luggage)) all.push(priced(x.entry, x.distanceKm));
            const currency = chooseNetworkCurrency(all, trip.pickupCurrency);
            const names = new Map(PROVIDERS.map((p) => [p, `Name of ${p}`]));
            const expected = rankNetworkOptions(
              all.filter((v) => v.entry.currency === currency),
              names,
            );
            const leftOut = all.filter((v) => v.entry.currency !== currency);

            // The fast way, as indexNetworkPricing assembles it.
            const m = index.circle({ centre, radiusKm: widest, minPassengers: trip.pax, ...(trip.luggage !== undefined ? { minLuggage: trip.luggage } : {}) });
            const extraNetids: string[] = [];
            const ownerOf = (netid: string) => {
              for (let o = 0; o < m.owners; o++) if (m.netid(o) === netid) return o;
              const known = extraNetids.indexOf(netid);
              if (known >= 0) return m.owners + known;
              extraNetids.push(netid);
              return m.owners + extraNetids.length - 1;
            };
            const extras: ExtraVehicle[] = extraEntries.filter((x) => fits(x.entry, trip.pax, trip.luggage)).map((x) => ({ ...x, owner: ownerOf(x.entry.netid) }));
            const netidOf = (o: number) => (o < m.owners ? m.netid(o) : extraNetids[o - m.owners]);
            const size = m.owners + extraNetids.length;
            const rankTerms = { admitted: new Uint8Array(size), radiusKm: new Float64Array(size), preferredType: new Array<string | undefined>(size) };
            for (let o = 0; o < size; o++) {
              const t = terms.get(netidOf(o))!;
              rankTerms.admitted[o] = t.admitted ? 1 : 0;
              rankTerms.radiusKm[o] = t.radiusKm;
              rankTerms.preferredType[o] = t.admitted ? t.preferredType : undefined;
            }
            const got = rankCircle({ matches: m, extras, netidOf, terms: rankTerms, quarterHours: trip.quarterHours, pickupCurrency: trip.pickupCurrency, currencies });

            if (expected.length === 50) seen.full++;
            if (expected.length === 50 && !trip.mapped) seen.fullUnmapped++;
            if (got.chosen.some((v) => v.preferred)) seen.preferred++;
            if (leftOut.length > 0) seen.leftOut++;
            expect(got.currency).toBe(currency);
            expect(networkOptionsOf(got.chosen, names)).toEqual(expected);
            expect(got.leftOut).toBe(leftOut.length);
            expect(got.leftOutCurrencies).toEqual([...new Set(leftOut.map((v) => v.entry.currency))].sort());

            // Across currencies (the network quote, docs/fx.md#what-a-network-quote-shows): every vehicle ranked by its fee converted to
            // USD; BHD has no rate here, so its vehicles rank after all others (by their own fee).
            const fx = new FeeConverter({ date: "2024-06-28", rates: { USD: 1.0705, JPY: 171.94 } }, "USD", currencies);
            const keyed = all.map((v) => ({ ...v, minorUnits: fx.units(v.minorUnits, v.entry.currency) ?? 2 ** 50 + v.minorUnits }));
            const acrossExpected = rankNetworkOptions(keyed, names);
            const across = rankCircle({
              matches: m, extras, netidOf, terms: rankTerms, quarterHours: trip.quarterHours, pickupCurrency: trip.pickupCurrency, currencies, fx,
            });
            expect(networkOptionsOf(across.chosen, names)).toEqual(acrossExpected);
            expect(across.leftOut).toBe(0);
            if (new Set(across.chosen.map((v) => v.entry.currency)).size > 2) seen.mixed++;
          } finally {
            index.close();
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(seen.full).toBeGreaterThan(5);
    expect(seen.fullUnmapped).toBeGreaterThan(5);
    expect(seen.preferred).toBeGreaterThan(5);
    expect(seen.leftOut).toBeGreaterThan(5);
    expect(seen.mixed).toBeGreaterThan(5);
  });
});
