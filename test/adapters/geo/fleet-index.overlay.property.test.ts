import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import type { IndexRow } from "../../../domain/fleet/source";
import { rowsSource } from "./sources";
import { distance } from "geokdbush";
import { matchesAllWords, queryWords, searchTextOf } from "../../../domain/fleet/text";

// Recent changes are answered from an overlay over the last full build; searches must not tell the difference.
const HUBS = [
  { lat: 40.64, lon: -73.78 },
  { lat: 0, lon: 179.8 },
];
const TYPES = ["SEDAN", "SUV", "BUS"];
const NAMES = ["Mercédès S", "Escalade", "Blue Sedan"];
const AIRPORTS = ["JFK", "LHR"];
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
const grid = (max: number) => fc.integer({ min: -max, max }).map((n) => n / 4);

const spec = fc.record({
  hub: fc.integer({ min: 0, max: 1 }),
  dLat: grid(8),
  dLon: grid(8),
  located: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  type: fc.constantFrom(...TYPES),
  name: fc.constantFrom(...NAMES),
  netid: fc.constantFrom("OP-A", "OP-B"),
  airport: fc.constantFrom(...AIRPORTS),
});
type Spec = typeof spec extends fc.Arbitrary<infer S> ? S : never;

function row(slug: string, s: Spec): IndexRow {
  return {
    slug,
    netid: s.netid,
    type: s.type,
    name: s.name,
    description: "",
    imageUrl: null,
    maxPassengers: 4,
    maxLuggage: null,
    lat: s.located ? HUBS[s.hub].lat + s.dLat : null,
    lon: s.located ? wrapLon(HUBS[s.hub].lon + s.dLon) : null,
    airports: [s.airport],
    minimumRate: "1.00",
    hourlyRate: "2.00",
    currency: "USD",
  };
}

const change = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), spec }),
  fc.record({ kind: fc.constant("update" as const), pick: fc.nat(), spec }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("full rebuild" as const) }),
);
const query = fc.record({
  hub: fc.integer({ min: 0, max: 1 }),
  radiusKm: fc.integer({ min: 1, max: 400 }),
  types: fc.option(fc.subarray(TYPES, { minLength: 1 }), { nil: undefined }),
  q: fc.constantFrom("", "merc", "sedan", "esc"),
  offset: fc.integer({ min: 0, max: 30 }),
  limit: fc.integer({ min: 1, max: 50 }),
});

describe("fleet index overlay of recent changes", () => {
  test("after any mix of adds, updates, removals and full rebuilds, search and MISSING_GPS counts match brute force", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 0, maxLength: 150 }), fc.array(change, { minLength: 1, maxLength: 25 }), fc.array(query, { minLength: 1, maxLength: 4 }), async (initial, changes, queries) => {
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
            const slugs = [...fleet.keys()];
            if (c.kind === "full rebuild") {
              await index.rebuildNow();
              continue;
            }
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
            const words = queryWords(q.q);
            const expected = [...fleet.values()]
              .filter((e) => e.lat !== null && (!q.types || q.types.includes(e.type)) && matchesAllWords(searchTextOf(e), words))
              .map((e) => ({ slug: e.slug, d: distance(centre.lon, centre.lat, e.lon!, e.lat!) }))
              .filter((m) => m.d <= q.radiusKm)
              .sort((a, b) => a.d - b.d || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
            const got = index.search({ centres: [centre], radiusKm: q.radiusKm, types: q.types, words, offset: q.offset, limit: q.limit });
            expect(got.total).toBe(expected.length);
            expect(got.hits.map((h) => h.entry.slug)).toEqual(expected.slice(q.offset, q.offset + q.limit).map((m) => m.slug));

            const unlocated = [...fleet.values()].filter((e) => e.lat === null && (!q.types || q.types.includes(e.type)) && matchesAllWords(searchTextOf(e), words));
            const perCompany = new Map<string, number>();
            for (const e of unlocated) perCompany.set(e.netid, (perCompany.get(e.netid) ?? 0) + 1);
            const counts = index.unlocated(AIRPORTS, { types: q.types, words }).map((u) => [u.netid, u.count]);
            expect(counts).toEqual([...perCompany].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: 120 },
    );
  });
});
