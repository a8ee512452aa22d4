import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import { FleetSnapshot } from "../../../adapters/geo/search/snapshot";
import { distance } from "geokdbush";
import { matchesAllWords, queryWords, searchTextOf } from "../../../domain/fleet/text";
import type { FleetEntry } from "../../../domain/fleet/entry";

// Clusters that cross the antimeridian and touch a pole, with grid positions so ties are common.
const HUBS = [
  { lat: 40.64, lon: -73.78 },
  { lat: 0, lon: 179.8 },
  { lat: 88, lon: 0 },
];
const TYPES = ["SEDAN", "SUV", "BUS"];
const NAMES = ["Mercédès S", "Escalade", "Blue Sedan"];
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
const grid = (max: number) => fc.integer({ min: -max, max }).map((n) => n / 4);

const entries = fc.array(
  fc.record({ hub: fc.integer({ min: 0, max: 2 }), dLat: grid(16), dLon: grid(16), type: fc.constantFrom(...TYPES), name: fc.constantFrom(...NAMES), active: fc.integer({ min: 0, max: 9 }) }),
  { minLength: 1, maxLength: 600, size: "max" },
);
const query = fc.record({
  centres: fc.array(fc.record({ hub: fc.integer({ min: 0, max: 2 }), dLat: grid(8), dLon: grid(8) }), { minLength: 1, maxLength: 3 }),
  radiusKm: fc.integer({ min: 1, max: 1000 }),
  types: fc.option(fc.subarray(TYPES, { minLength: 1 }), { nil: undefined }),
  // Words repeat across a snapshot's queries (their memos are kept) and combine (every word must match).
  q: fc.constantFrom("", "merc", "sedan", "esc", "blue sedan", "s merc", "sedan blue x"),
  offset: fc.integer({ min: 0, max: 50 }),
  limit: fc.integer({ min: 1, max: 100 }),
});

describe("kd-tree fleet snapshot against brute force", () => {
  test("count, page and order agree for tiny and normal leaf sizes", () => {
    fc.assert(
      fc.property(entries, fc.array(query, { minLength: 1, maxLength: 5 }), fc.constantFrom(2, 3, 8, 32), (specs, queries, nodeSize) => {
        const fleet: FleetEntry[] = specs.map((s, i) => ({
          slug: `e-${String(i % 7)}-${i}`,
          netid: "OP",
          type: s.type,
          name: s.name,
          description: "",
          imageUrl: null,
          maxPassengers: 1,
          maxLuggage: null,
          lat: Math.max(-90, Math.min(90, HUBS[s.hub].lat + s.dLat)),
          lon: wrapLon(HUBS[s.hub].lon + s.dLon),
          airports: [],
          minimumRate: "0.00",
          hourlyRate: "0.00",
          currency: "USD",
          active: s.active > 0,
          createdAt: 0,
          updatedAt: 0,
        }));
        const parts = buildIndexParts(fleet.filter((e) => e.active), nodeSize);
        const snapshot = new FleetSnapshot(parts);
        // The first build at start-up serves before its per-type trees arrive: the same answers without them.
        const pending = new FleetSnapshot({ ...parts, typeTrees: [] });
        for (const q of queries) {
          const centres = q.centres.map((c) => ({ lat: Math.max(-90, Math.min(90, HUBS[c.hub].lat + c.dLat)), lon: wrapLon(HUBS[c.hub].lon + c.dLon) }));
          const words = queryWords(q.q);
          const expected = fleet
            .filter((e) => e.active && (!q.types || q.types.includes(e.type)) && matchesAllWords(searchTextOf(e), words))
            .map((e) => ({ slug: e.slug, d: Math.min(...centres.map((c) => distance(c.lon, c.lat, e.lon!, e.lat!))) }))
            .filter((m) => m.d <= q.radiusKm)
            .sort((a, b) => a.d - b.d || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
          const page = expected.slice(q.offset, q.offset + q.limit);
          for (const s of [snapshot, pending]) {
            const got = s.search({ centres, radiusKm: q.radiusKm, types: q.types, words, offset: q.offset, limit: q.limit });
            expect(got.total).toBe(expected.length);
            expect(got.hits.map((hit) => hit.entry.slug)).toEqual(page.map((m) => m.slug));
            got.hits.forEach((hit, i) => expect(Math.abs(hit.distanceKm - page[i].d)).toBeLessThan(0.001));
          }
        }
        // Once they arrive, it answers from them, as the complete snapshot does.
        if (parts.typeTrees.length > 0) {
          pending.attachTypeTrees(parts.typeTrees);
          for (const q of queries) {
            const centres = q.centres.map((c) => ({ lat: Math.max(-90, Math.min(90, HUBS[c.hub].lat + c.dLat)), lon: wrapLon(HUBS[c.hub].lon + c.dLon) }));
            const search = { centres, radiusKm: q.radiusKm, types: q.types, words: queryWords(q.q), offset: q.offset, limit: q.limit };
            expect(pending.search(search)).toEqual(snapshot.search(search));
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  test("q answers stay right when more words are searched than the snapshot keeps memos for", () => {
    const names = Array.from({ length: 90 }, (_, i) => `Vehicle w${i} blue`);
    const fleet: FleetEntry[] = Array.from({ length: 900 }, (_, i) => ({
      slug: `e-${i}`,
      netid: "OP",
      type: TYPES[i % 3],
      name: names[i % names.length],
      description: i % 4 === 0 ? "leather" : "",
      imageUrl: null,
      maxPassengers: 1,
      maxLuggage: null,
      lat: 40 + (i % 30) / 100,
      lon: -73 - Math.floor(i / 30) / 100,
      airports: [],
      minimumRate: "0.00",
      hourlyRate: "0.00",
      currency: "USD",
      active: true,
      createdAt: 0,
      updatedAt: 0,
    }));
    const snapshot = new FleetSnapshot(buildIndexParts(fleet, 8));
    // 90 distinct words, then the first ones again (their memos evicted meanwhile), one and two words at a time.
    const qs = [...names.map((_, i) => `w${i}`), "w0", "w1 leather", "blue leather", "w2", "blue"];
    for (const q of qs) {
      const words = queryWords(q);
      const expected = fleet.filter((e) => matchesAllWords(searchTextOf(e), words)).length;
      const got = snapshot.search({ centres: [{ lat: 40.15, lon: -73.15 }], radiusKm: 100, types: undefined, words, offset: 0, limit: 5 });
      expect({ q, total: got.total }).toEqual({ q, total: expected });
      expect(expected).toBeGreaterThan(0);
    }
  });

  test("the q memos stay within 16 MB: a snapshot with very many distinct texts keeps fewer words", () => {
    const fleet: FleetEntry[] = ["alpha", "beta"].map((name, i) => ({
      slug: `e-${i}`, netid: "OP", type: "SEDAN", name, description: "", imageUrl: null, maxPassengers: 1, maxLuggage: null,
      lat: 40, lon: -73, airports: [], minimumRate: "0.00", hourlyRate: "0.00", currency: "USD", active: true, createdAt: 0, updatedAt: 0,
    }));
    const kept = (textCount: number) => {
      const parts = buildIndexParts(fleet, 8);
      // As many distinct texts as a big fleet with unique descriptions has (the extra ones belong to no entry).
      parts.searchTexts = [...parts.searchTexts, ...Array.from({ length: textCount - parts.searchTexts.length }, (_, i) => `text ${i}`)];
      const snapshot = new FleetSnapshot(parts);
      for (let w = 0; w < 80; w++) snapshot.search({ centres: [{ lat: 40, lon: -73 }], radiusKm: 10, types: undefined, words: [`w${w}`], offset: 0, limit: 5 });
      return (snapshot as unknown as { wordMemos: Map<string, Uint8Array> }).wordMemos;
    };
    expect(kept(1_000).size).toBe(64);
    const many = kept(4_000_000);
    expect(many.size).toBe(4);
    expect([...many.values()].reduce((n, m) => n + m.length, 0)).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});
