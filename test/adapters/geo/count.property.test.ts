import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { distance } from "geokdbush";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import { FleetSnapshot } from "../../../adapters/geo/search/snapshot";
import { EARTH_RADIUS_KM } from "../../../domain/geo";
import { matchesAllWords, queryWords, searchTextOf } from "../../../domain/fleet/text";
import type { IndexRow } from "../../../domain/fleet/source";

// Totals counted through node boxes (a subtree inside a circle adds its size without looking at its points)
// against the brute-force count with geokdbush's distance. Many points lie within a few metres of a circle,
// closer than float32 coordinates can tell apart, so a count that trusts the boxes or the float32 chords
// there (no margin) gets them wrong; centres overlap, so a subtree inside two circles counted twice shows.

const HUBS = [
  { lat: 40.64, lon: -73.78 },
  { lat: 0.5, lon: 179.9 },
  { lat: 89.5, lon: 10 },
  { lat: -89.8, lon: -120 },
];
const TYPES = ["SEDAN", "SUV", "BUS"];
const NAMES = ["Black Sedan", "Silver Escalade", "Blue Van"];
const RAD = Math.PI / 180;
const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);

/** The point `km` from (lat, lon) along `bearing` (radians) on the sphere of the index's Earth radius. */
function destination(lat: number, lon: number, bearing: number, km: number): { lat: number; lon: number } {
  const d = km / EARTH_RADIUS_KM;
  const p1 = lat * RAD;
  const sinP2 = Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(bearing);
  const p2 = Math.asin(Math.max(-1, Math.min(1, sinP2)));
  const l2 = lon * RAD + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * sinP2);
  return { lat: Math.max(-90, Math.min(90, p2 / RAD)), lon: wrapLon(((l2 / RAD + 540) % 360) - 180) };
}

const centreSpec = fc.record({ hub: fc.integer({ min: 0, max: HUBS.length - 1 }), dLat: fc.integer({ min: -8, max: 8 }), dLon: fc.integer({ min: -8, max: 8 }) });
const pointSpec = fc.record({
  // On a circle (its centre's index among the query's), a few millimetres to metres off it, or anywhere near a hub.
  onCircle: fc.integer({ min: 0, max: 3 }),
  bearing: fc.integer({ min: 0, max: 359 }),
  offMm: fc.oneof(fc.constant(0), fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: -30, max: 30 })),
  hub: fc.integer({ min: 0, max: HUBS.length - 1 }),
  dLat: fc.integer({ min: -40, max: 40 }),
  dLon: fc.integer({ min: -40, max: 40 }),
  type: fc.constantFrom(...TYPES),
  name: fc.constantFrom(...NAMES),
});
const caseSpec = fc.record({
  centres: fc.array(centreSpec, { minLength: 1, maxLength: 3 }),
  radiusKm: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.double({ min: 0.5, max: 400, noNaN: true })),
  points: fc.array(pointSpec, { minLength: 1, maxLength: 400, size: "max" }),
  nodeSize: fc.integer({ min: 1, max: 4 }),
  types: fc.option(fc.subarray(TYPES, { minLength: 1 }), { nil: undefined }),
  q: fc.constantFrom("", "", "black", "sedan", "e"),
});

describe("counting through node boxes against brute force", () => {
  test("totals agree with points on and within millimetres of the circles, overlapping centres, poles and the antimeridian", () => {
    fc.assert(
      fc.property(caseSpec, (c) => {
        const centres = c.centres.map((s) => ({ lat: Math.max(-90, Math.min(90, HUBS[s.hub].lat + s.dLat / 4)), lon: wrapLon(HUBS[s.hub].lon + s.dLon / 4) }));
        const rows: IndexRow[] = c.points.map((p, i) => {
          const at =
            p.onCircle < 3
              ? destination(centres[p.onCircle % centres.length].lat, centres[p.onCircle % centres.length].lon, p.bearing * RAD, c.radiusKm + p.offMm / 1e6)
              : { lat: Math.max(-90, Math.min(90, HUBS[p.hub].lat + p.dLat / 8)), lon: wrapLon(HUBS[p.hub].lon + p.dLon / 8) };
          return { slug: `e-${i}`, netid: "OP", type: p.type, name: p.name, description: "", imageUrl: null, maxPassengers: 1, maxLuggage: null, lat: at.lat, lon: at.lon, airports: [], minimumRate: "0.00", hourlyRate: "0.00", currency: "USD" };
        });
        const words = queryWords(c.q);
        const expected = rows.filter(
          (r) =>
            (!c.types || c.types.includes(r.type)) &&
            matchesAllWords(searchTextOf(r), words) &&
            Math.min(...centres.map((k) => distance(k.lon, k.lat, r.lon!, r.lat!))) <= c.radiusKm,
        ).length;
        const parts = buildIndexParts(rows, c.nodeSize);
        const search = { centres, radiusKm: c.radiusKm, types: c.types, words, offset: 0, limit: 1 };
        expect(new FleetSnapshot(parts).search(search).total).toBe(expected);
        // Before its per-type trees arrive a snapshot counts over the all-types tree, checking types point by point.
        expect(new FleetSnapshot({ ...parts, typeTrees: [] }).search(search).total).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
