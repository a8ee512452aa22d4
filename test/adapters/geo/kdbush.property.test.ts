import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import KDBush from "kdbush";
import { around } from "geokdbush";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import { FleetSnapshot } from "../../../adapters/geo/search/snapshot";
import type { IndexRow } from "../../../domain/fleet/source";
// Every tree of the index is a real kdbush index: kdbush's own build of the same points gives the same
// buffer byte for byte, and geokdbush's `around` over it finds what the index's search finds.

const TYPES = ["SEDAN", "SUV", "BUS"];
const point = fc.record({
  lat: fc.integer({ min: -360, max: 360 }).map((n) => n / 4),
  lon: fc.integer({ min: -720, max: 720 }).map((n) => n / 4),
  type: fc.constantFrom(...TYPES),
});

function rows(points: Array<{ lat: number; lon: number; type: string }>): IndexRow[] {
  return points.map((p, i) => ({
    slug: `e-${String(i).padStart(5, "0")}`,
    netid: "OP",
    type: p.type,
    name: "Car",
    description: "",
    imageUrl: null,
    maxPassengers: 1,
    maxLuggage: null,
    lat: p.lat,
    lon: p.lon,
    airports: [],
    minimumRate: "0.00",
    hourlyRate: "0.00",
  }));
}

describe("the index's trees are kdbush indexes", () => {
  test("the same layout as kdbush's own build, point for point, for every tree", () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 0, maxLength: 400 }), fc.constantFrom(2, 4, 32), (points, nodeSize) => {
        const fleet = rows(points);
        const parts = buildIndexParts(fleet, nodeSize);
        const memberLists = [fleet.map((_, i) => i), ...parts.typeNames.map((t) => fleet.flatMap((r, i) => (r.type === t ? [i] : [])))];
        [parts.all, ...parts.typeTrees].forEach((tree, t) => {
          const members = memberLists[t];
          const own = new KDBush(members.length, nodeSize, Float64Array);
          for (const i of members) own.add(fleet[i].lon!, fleet[i].lat!);
          own.finish();
          expect(new Uint8Array(tree.data)).toEqual(new Uint8Array(own.data as ArrayBuffer));
          const index = KDBush.from(tree.data);
          expect([...tree.ids]).toEqual([...index.ids].map((k) => members[k]));
        });
      }),
      { numRuns: 150 },
    );
  });

  test("geokdbush's around over the all-types tree finds exactly the index's matches", () => {
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 400 }),
        fc.record({ lat: fc.integer({ min: -80, max: 80 }), lon: fc.integer({ min: -180, max: 180 }), radiusKm: fc.integer({ min: 1, max: 1000 }) }),
        (points, q) => {
          const fleet = rows(points);
          const parts = buildIndexParts(fleet, 4);
          const snapshot = new FleetSnapshot(parts);
          const found = around(KDBush.from(parts.all.data), q.lon, q.lat, Infinity, q.radiusKm).map((id) => fleet[id].slug);
          const result = snapshot.search({ centres: [{ lat: q.lat, lon: q.lon }], radiusKm: q.radiusKm, types: undefined, words: [], offset: 0, limit: fleet.length });
          expect(result.total).toBe(found.length);
          expect(result.hits.map((h) => h.entry.slug).sort()).toEqual([...found].sort());
        },
      ),
      { numRuns: 300 },
    );
  });
});
