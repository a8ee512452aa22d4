import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { distance } from "geokdbush";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import type { IndexRow } from "../../../domain/fleet/source";
import { RANK_SLUGS_FROM } from "../../../adapters/geo/search/serving";
import { rowsSource } from "./sources";

// FleetSearchIndex.serving (a provider's entries serving a pickup, as columns, from the base less its changed entries
// and the overlay of recent changes) against brute force: within the radius or listing the airport, every column right.
const HUBS = [
  { lat: 40.64, lon: -73.78 },
  { lat: 0, lon: 179.8 },
];
const AIRPORTS = ["JFK", "LGA", "LHR"];
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
const grid = (max: number) => fc.integer({ min: -max, max }).map((n) => n / 4);

const spec = fc.record({
  hub: fc.integer({ min: 0, max: 1 }),
  dLat: grid(8),
  dLon: grid(8),
  located: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  type: fc.constantFrom("SEDAN", "SUV", "BUS"),
  netid: fc.constantFrom("OP-A", "OP-B", "OP-C"),
  airports: fc.subarray(AIRPORTS, { maxLength: 2 }),
  seats: fc.integer({ min: 1, max: 9 }),
  luggage: fc.option(fc.integer({ min: 0, max: 9 }), { nil: null }),
  rate: fc.constantFrom(["75.00", "65.00", "USD"], ["75.00", "65.50", "USD"], ["9000", "7000", "JPY"], ["75.00", "65.00", "EUR"]),
});
type Spec = typeof spec extends fc.Arbitrary<infer S> ? S : never;

function row(slug: string, s: Spec): IndexRow {
  return {
    slug,
    netid: s.netid,
    type: s.type,
    name: `Car ${slug}`,
    description: "",
    imageUrl: null,
    maxPassengers: s.seats,
    maxLuggage: s.luggage,
    lat: s.located ? HUBS[s.hub].lat + s.dLat : null,
    lon: s.located ? wrapLon(HUBS[s.hub].lon + s.dLon) : null,
    // Stored lists come comma-separated (SQLite) or as arrays (PostgreSQL).
    airports: s.seats % 2 === 0 ? s.airports.join(",") : s.airports,
    minimumRate: s.rate[0],
    hourlyRate: s.rate[1],
    currency: s.rate[2],
  };
}

const listsOf = (e: IndexRow) => (typeof e.airports === "string" ? (e.airports === "" ? [] : e.airports.split(",")) : [...e.airports]);

const change = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), spec }),
  fc.record({ kind: fc.constant("update" as const), pick: fc.nat(), spec }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("full rebuild" as const) }),
);
const query = fc.record({
  hub: fc.integer({ min: 0, max: 1 }),
  radiusKm: fc.integer({ min: 1, max: 500 }),
  netid: fc.constantFrom("OP-A", "OP-B", "OP-C", "OP-NONE"),
  airport: fc.option(fc.constantFrom(...AIRPORTS), { nil: undefined }),
});

describe("fleet index: a provider's serving set", () => {
  test("after any mix of changes, the located entries within the radius or listing the airport, with their columns; those without a position listing it too", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { maxLength: 150 }), fc.array(change, { maxLength: 20 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (initial, changes, queries) => {
        const fleet = new Map<string, IndexRow>();
        let next = 0;
        for (const s of initial) fleet.set(`e-${next % 5}-${next}`, row(`e-${next % 5}-${next++}`, s));
        const index = new KdFleetSearchIndex({
          source: rowsSource(
            () => [...fleet.values()],
            (slugs) => slugs.flatMap((slug) => (fleet.has(slug) ? [fleet.get(slug)!] : [])),
          ),
          useWorker: false,
          nodeSize: 4,
          compactAfterMs: 60_000,
        });
        try {
          await index.rebuildNow();
          for (const c of changes) {
            if (c.kind === "full rebuild") {
              await index.rebuildNow();
              continue;
            }
            const slugs = [...fleet.keys()];
            let slug: string;
            if (c.kind === "add") slug = `e-${next % 5}-${next++}`;
            else if (slugs.length === 0) continue;
            else slug = slugs[c.pick % slugs.length];
            if (c.kind === "remove") fleet.delete(slug);
            else fleet.set(slug, row(slug, c.spec));
            index.fleetChanged([slug]);
          }
          await index.whenFresh();

          for (const q of queries) {
            const centre = HUBS[q.hub];
            const own = [...fleet.values()].filter((e) => e.netid === q.netid);
            const listing = (e: IndexRow) => q.airport !== undefined && listsOf(e).includes(q.airport);
            const expected = own.filter((e) => (e.lat !== null && e.lon !== null && distance(centre.lon, centre.lat, e.lon, e.lat) <= q.radiusKm) || listing(e)).map((e) => e.slug);
            const set = index.serving(q.netid, { position: centre, radiusKm: q.radiusKm, ...(q.airport ? { airport: q.airport } : {}) });
            const codes = Array.from({ length: set.size }, (_, i) => set.code(i));
            expect([...codes].sort()).toEqual([...expected].sort());
            for (let i = 0; i < set.size; i++) {
              const e = fleet.get(codes[i])!;
              const rate = set.rates[set.rate[i]];
              expect([rate.minimumRate, rate.hourlyRate, rate.currency]).toEqual([e.minimumRate, e.hourlyRate, e.currency]);
              expect(set.seats[i]).toBe(e.maxPassengers);
              expect(set.luggage[i]).toBe(e.maxLuggage ?? -1);
              expect(set.types[set.type[i]]).toBe(e.type);
              expect(set.vehicle(i)).toEqual({ slug: e.slug, type: e.type, name: e.name, description: e.description, imageUrl: e.imageUrl, maxPassengers: e.maxPassengers, maxLuggage: e.maxLuggage, minimumRate: e.minimumRate, hourlyRate: e.hourlyRate, currency: e.currency, active: true });
              for (let j = 0; j < set.size; j++) expect(Math.sign(set.compareCodes(i, j))).toBe(codes[i] < codes[j] ? -1 : codes[i] > codes[j] ? 1 : 0);
            }
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe("fleet index: a large company's codes", () => {
  test(`a company of ${RANK_SLUGS_FROM * 3} entries sharing a long prefix (ranked) and a small one beside it: every pair of its serving set compares as the codes' text`, async () => {
    const fleet = new Map<string, IndexRow>();
    const base: Spec = { hub: 0, dLat: 0, dLon: 0, located: true, type: "SEDAN", netid: "OP-A", airports: ["JFK"], seats: 4, luggage: 2, rate: ["75.00", "65.00", "USD"] };
    // Shuffled against their order: the ids the index gives follow insertion, the ranks must follow the text.
    for (let k = 0; k < RANK_SLUGS_FROM * 3; k++) {
      const n = (k * 7919) % (RANK_SLUGS_FROM * 3);
      const slug = `acme-limousine-services-of-new-york-${n % 3 === 0 ? "z" : ""}${n}`;
      fleet.set(slug, row(slug, { ...base, dLat: (k % 40) / 100 }));
    }
    for (let k = 0; k < 30; k++) fleet.set(`small-op-${(k * 13) % 30}`, row(`small-op-${(k * 13) % 30}`, { ...base, netid: "OP-B" }));
    const index = new KdFleetSearchIndex({ source: rowsSource(() => [...fleet.values()], (slugs) => slugs.flatMap((s) => (fleet.has(s) ? [fleet.get(s)!] : []))), useWorker: false, nodeSize: 8, compactAfterMs: 60_000 });
    try {
      await index.rebuildNow();
      // A change after the build: its entry is in the overlay, compared with the base's as text.
      const late = "acme-limousine-services-of-new-york-late";
      fleet.set(late, row(late, base));
      index.fleetChanged([late]);
      await index.whenFresh();
      for (const netid of ["OP-A", "OP-B"]) {
        const set = index.serving(netid, { position: HUBS[0], radiusKm: 100 });
        const codes = Array.from({ length: set.size }, (_, i) => set.code(i));
        expect(codes.length).toBe(netid === "OP-A" ? RANK_SLUGS_FROM * 3 + 1 : 30);
        const wrong: string[] = [];
        for (let i = 0; i < set.size; i++)
          for (let j = i % 7; j < set.size; j += 7) {
            const want = codes[i] < codes[j] ? -1 : codes[i] > codes[j] ? 1 : 0;
            if (Math.sign(set.compareCodes(i, j)) !== want) wrong.push(`${codes[i]} vs ${codes[j]}`);
          }
        expect(wrong.slice(0, 3)).toEqual([]);
      }
    } finally {
      index.close();
    }
  });
});
