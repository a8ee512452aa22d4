import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import KDBush from "kdbush";
import { around } from "geokdbush";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import { FleetSnapshot } from "../../../adapters/geo/search/snapshot";
import { loadIndexFile, saveIndexFile } from "../../../adapters/geo/saved/index-file";
import { join } from "node:path";
import { tempDir } from "../../support/process";
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
    currency: "USD",
  }));
}

/**
 * Each tree of `parts` against kdbush's own build of the same points: the same header and coordinates, byte for
 * byte, and the same ids (kdbush's positions in the member list; the index keeps global ids in 32-bit ones).
 */
function expectKdbushLayout(fleet: IndexRow[], parts: ReturnType<typeof buildIndexParts>, nodeSize: number): void {
  const memberLists = [fleet.map((_, i) => i), ...parts.typeNames.map((t) => fleet.flatMap((r, i) => (r.type === t ? [i] : [])))];
  [parts.all, ...parts.typeTrees].forEach((tree, t) => {
    const members = memberLists[t];
    const own = new KDBush(members.length, nodeSize, Float64Array);
    for (const i of members) own.add(fleet[i].lon!, fleet[i].lat!);
    own.finish();
    const index = KDBush.from(tree.data);
    expect(new Uint8Array(tree.data, 0, 8)).toEqual(new Uint8Array(own.data as ArrayBuffer, 0, 8));
    expect(index.coords).toEqual(own.coords);
    const global = [...own.ids].map((k) => members[k]);
    expect([...index.ids]).toEqual(index.ids instanceof Uint32Array ? global : [...own.ids]);
    expect([...tree.ids]).toEqual(global);
  });
}

describe("the index's trees are kdbush indexes", () => {
  test("the same layout as kdbush's own build, point for point, for every tree", () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 0, maxLength: 400 }), fc.constantFrom(2, 4, 32), (points, nodeSize) => {
        const fleet = rows(points);
        expectKdbushLayout(fleet, buildIndexParts(fleet, nodeSize), nodeSize);
      }),
      { numRuns: 150 },
    );
  });

  test("trees of 65,536 points or more (32-bit ids): the same layout, searches and saved file", async () => {
    // 70,000 points: the all-types tree and the SEDAN tree are big, the other two small.
    const random = fc.sample(point, { numRuns: 70_000, seed: 17 });
    const fleet = rows(random.map((p, i) => ({ ...p, type: i % 10 === 0 ? "BUS" : i % 10 === 1 ? "SUV" : "SEDAN" })));
    const parts = buildIndexParts(fleet);
    expect(KDBush.from(parts.all.data).ids).toBeInstanceOf(Uint32Array);
    expectKdbushLayout(fleet, parts, 32);
    const file = join(tempDir("tripswitch-kdbush-"), "fleet.fleet-index");
    const stamp = { n: 1, token: "t" };
    await saveIndexFile(file, parts, stamp);
    const loaded = await loadIndexFile(file, stamp);
    expect(loaded).toEqual(parts);
    const built = new FleetSnapshot(parts);
    const reloaded = new FleetSnapshot(loaded!);
    for (const q of fc.sample(fc.record({ lat: fc.integer({ min: -80, max: 80 }), lon: fc.integer({ min: -180, max: 180 }), radiusKm: fc.integer({ min: 1, max: 1000 }) }), { numRuns: 20, seed: 3 })) {
      const search = { centres: [{ lat: q.lat, lon: q.lon }], radiusKm: q.radiusKm, types: q.lat > 0 ? ["SEDAN", "BUS"] : undefined, words: [], offset: 0, limit: 20 };
      const answer = built.search(search);
      expect(reloaded.search(search)).toEqual(answer);
      const found = around(KDBush.from(parts.all.data), q.lon, q.lat, Infinity, q.radiusKm).filter((id) => !search.types || search.types.includes(fleet[id].type));
      expect(answer.total).toBe(found.length);
    }
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
