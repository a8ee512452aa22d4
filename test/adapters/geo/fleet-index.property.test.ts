import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHarness, type Harness } from "../../support/harness";
import { company } from "../../support/fleet";
import { distance } from "geokdbush";
import { matchesAllWords, queryWords, searchTextOf } from "../../../domain/fleet/text";
import { slugBase } from "../../../domain/fleet/slug";
import type { FleetEntry } from "../../../domain/fleet/entry";
import type { NewFleetEntry } from "../../../domain/fleet/ports";

// Hubs near real airports, one across the antimeridian (Suva, SUV) and one near the pole.
const AIRPORTS = ["JFK", "LHR", "SUV"] as const;
const HUBS = [
  { lat: 40.64, lon: -73.78 },
  { lat: 51.47, lon: -0.46 },
  { lat: -18.04, lon: 179.9 },
  { lat: 84.5, lon: 10 },
];
const TYPES = ["SEDAN", "SUV", "VAN_MINI"] as const;
const NAMES = ["Mercédès S", "Escalade", "Sprinter Van", "Blue Sedan", "Élan"] as const;
const DESCRIPTIONS = ["", "Cuir noir", "leather seats, Wi-Fi", "VAN for groups"] as const;
const QUERIES = ["", "merc", "sedan", "van", "esc ala", "cuir wi", "elan"] as const;

const wrapLon = (lon: number) => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
/** Grid offsets (0.1°) so that identical positions, and so distance ties, are common. */
const offset = fc.integer({ min: -40, max: 40 }).map((n) => n / 10);

const entryArb = fc.record({
  hub: fc.integer({ min: 0, max: HUBS.length - 1 }),
  dLat: offset,
  dLon: offset,
  located: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  active: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  type: fc.constantFrom(...TYPES),
  name: fc.constantFrom(...NAMES),
  description: fc.constantFrom(...DESCRIPTIONS),
  owner: fc.integer({ min: 0, max: 1 }),
});

const queryArb = fc.record({
  airports: fc.subarray([...AIRPORTS]),
  position: fc.option(fc.record({ hub: fc.integer({ min: 0, max: HUBS.length - 1 }), dLat: offset, dLon: offset }), { nil: undefined }),
  radiusKm: fc.integer({ min: 1, max: 10_000 }).map((n) => n / 10),
  types: fc.option(fc.subarray<string>([...TYPES], { minLength: 1 }), { nil: undefined }),
  q: fc.constantFrom(...QUERIES),
  limit: fc.integer({ min: 1, max: 100 }),
  offset: fc.integer({ min: 0, max: 60 }),
});

type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

let h: Harness;
let auth: Record<string, string>;
let owners: string[];

beforeAll(async () => {
  h = createHarness();
  const platform = await company(h, { coType: "CO", plan: "PROFESSIONAL" });
  auth = platform.auth;
  owners = [(await company(h)).netid, (await company(h)).netid];
});
afterAll(() => h.close());

/** The brute-force answer: every entry checked with the haversine distance to every centre. */
function oracle(fleet: FleetEntry[], centres: Array<{ lat: number; lon: number }>, q: Query) {
  const words = queryWords(q.q);
  const matches: Array<{ slug: string; d: number }> = [];
  for (const e of fleet) {
    if (!e.active || e.lat === null || e.lon === null) continue;
    if (q.types && !q.types.includes(e.type)) continue;
    if (!matchesAllWords(searchTextOf(e), words)) continue;
    const d = Math.min(...centres.map((c) => distance(c.lon, c.lat, e.lon!, e.lat!)));
    if (d <= q.radiusKm) matches.push({ slug: e.slug, d });
  }
  matches.sort((a, b) => a.d - b.d || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return matches;
}

describe("fleet search against a brute-force oracle", () => {
  test("same items, same order, same total, distances within 1 m", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 20, maxLength: 400, size: "max" }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), async (specs, queries) => {
        h.db.$client.exec("DELETE FROM fleet_entries");
        const rows: NewFleetEntry[] = specs.map((s) => {
          const hub = HUBS[s.hub];
          const netid = owners[s.owner];
          return {
            netid,
            slugBase: slugBase(netid, s.name),
            type: s.type,
            name: s.name,
            description: s.description,
            imageUrl: null,
            maxPassengers: 4,
            maxLuggage: null,
            lat: s.located ? Math.max(-90, Math.min(90, hub.lat + s.dLat)) : null,
            lon: s.located ? wrapLon(hub.lon + s.dLon) : null,
            airports: [],
            minimumRate: "10.00",
            hourlyRate: "20.00",
            currency: "USD",
            active: s.active,
            createdAt: 0,
            updatedAt: 0,
          };
        });
        const fleet = await h.services.fleet.insertAll(rows);
        h.services.fleetIndex.fleetChanged();
        await h.indexed();

        for (const q of queries) {
          const centres = q.airports.map((code) => h.services.airports.lookup(code)!).map((a) => ({ lat: a.lat, lon: a.lon }));
          const params = new URLSearchParams({ radius_km: String(q.radiusKm), q: q.q, limit: String(q.limit), offset: String(q.offset) });
          if (q.airports.length) params.set("airports", q.airports.join(","));
          if (q.position || q.airports.length === 0) {
            const p = q.position ?? { hub: 0, dLat: 0, dLon: 0 };
            const position = { lat: HUBS[p.hub].lat + p.dLat, lon: wrapLon(HUBS[p.hub].lon + p.dLon) };
            centres.push(position);
            params.set("lat", String(position.lat));
            params.set("lon", String(position.lon));
          }
          if (q.types) params.set("types", q.types.map((t) => t.toLowerCase()).join(","));

          const res = await h.request("GET", `/api/search/fleet?${params}`, { headers: auth });
          expect(res.status).toBe(200);
          const expected = oracle(fleet, centres, q);
          const page = expected.slice(q.offset, q.offset + q.limit);
          expect(res.body.data.total).toBe(expected.length);
          expect(res.body.data.items.map((i: { slug: string }) => i.slug)).toEqual(page.map((m) => m.slug));
          res.body.data.items.forEach((item: { distanceKm: number }, i: number) => {
            // distanceKm is rounded to 2 decimals (±5 m); beyond that it must agree within 1 m.
            expect(Math.abs(item.distanceKm - page[i].d)).toBeLessThanOrEqual(0.005 + 0.001);
          });
        }
      }),
      { numRuns: 60 },
    );
  });
});
