import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { distance } from "geokdbush";
import { EARTH_RADIUS_KM, greatCircleKm } from "../../../domain/geo";
import { distanceKm } from "../../../domain/trips/places";
// One haversine in the service: the domain's great-circle distance is geokdbush's (the search index's), to the bit.

const position = fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });

describe("one great-circle distance", () => {
  test("the domain's distance equals geokdbush's for any two positions, and trips use it", () => {
    fc.assert(
      fc.property(position, position, (a, b) => {
        const d = greatCircleKm(a.lat, a.lon, b.lat, b.lon);
        // Near-antipodal pairs: geokdbush does not clamp rounding past 1 (NaN); the domain does.
        const g = distance(a.lon, a.lat, b.lon, b.lat);
        if (!Number.isNaN(g)) expect(d).toBe(g);
        expect(distanceKm(a, b)).toBe(d);
      }),
      { numRuns: 2_000 },
    );
  });

  test("one Earth radius: geokdbush's", () => {
    expect(EARTH_RADIUS_KM).toBe(6371);
    // A quarter of the equator.
    expect(distance(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * EARTH_RADIUS_KM, 9);
  });
});
