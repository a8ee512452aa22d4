import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHarness, type Harness } from "../../../support/harness";
import { addVehicle, company } from "../../../support/fleet";
import { searchFleet } from "../../../../domain/usecases/search-fleet";
import type { Caller } from "../../../../domain/ports";

// Answers of fleet search are kept per index generation and dropped by the fleet changes that can alter them.
// Through the route, across adds, moves, removals, text and type changes and entries without a position, every
// answer must be byte for byte what a fresh computation on the index gives at that moment.

const JFK = { lat: 40.639447, lon: -73.779317 };
const LHR = { lat: 51.4706, lon: -0.461941 };
const HUBS = [JFK, LHR];
const TYPES = ["SEDAN", "SUV", "VAN"];
const NAMES = ["Mercédès S", "Escalade", "Blue Sedan", "Sprinter"];

const QUERIES = [
  "airports=JFK",
  "airports=jfk&radius_km=5",
  "airports=JFK,LHR&types=SUV,sedan",
  "airports=LHR&q=sedan",
  "airports=JFK,XQZ&offset=2",
  "airports=JFK&limit=3&offset=1",
  `lat=${LHR.lat}&lon=${LHR.lon}&radius_km=20`,
  `lat=${JFK.lat + 0.1}&lon=${JFK.lon}&radius_km=8&q=merc`,
  `airports=LHR&lat=${JFK.lat}&lon=${JFK.lon}&radius_km=3&limit=2`,
  "airports=LHR&types=VAN&limit=100",
];

const place = fc.record({
  hub: fc.integer({ min: 0, max: 1 }),
  dLat: fc.integer({ min: -30, max: 30 }).map((n) => n / 100),
  dLon: fc.integer({ min: -30, max: 30 }).map((n) => n / 100),
  located: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
});
type Place = typeof place extends fc.Arbitrary<infer P> ? P : never;
const position = (p: Place) => (p.located ? { lat: HUBS[p.hub].lat + p.dLat, lon: HUBS[p.hub].lon + p.dLon } : { lat: null, lon: null });
const airportOf = (p: Place) => [p.hub === 0 ? "JFK" : "LHR"];

const change = fc.oneof(
  fc.record({ kind: fc.constant("add" as const), place, type: fc.constantFrom(...TYPES), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), place }),
  fc.record({ kind: fc.constant("text" as const), pick: fc.nat(), name: fc.constantFrom(...NAMES), type: fc.constantFrom(...TYPES) }),
  fc.record({ kind: fc.constant("airports" as const), pick: fc.nat(), hub: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ kind: fc.constant("deactivate" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("full rebuild" as const) }),
);

let h: Harness | undefined;
afterAll(() => h?.close());

describe("fleet search answer cache", () => {
  test("no answer served through the route ever differs from a fresh computation, across fleet changes", async () => {
    h = createHarness();
    const harness = h;
    const free = await company(harness);
    const pro = await company(harness, { plan: "PROFESSIONAL" });
    const callers: Array<{ auth: Record<string, string>; caller: Caller }> = [];
    for (const c of [free, pro]) callers.push({ auth: c.auth, caller: (await harness.services.users.findCaller(c.netid))! });
    const slugs: string[] = [];
    for (let i = 0; i < 12; i++)
      slugs.push(await addVehicle(harness, pro.auth, { name: NAMES[i % NAMES.length], type: TYPES[i % TYPES.length], lat: HUBS[i % 2].lat + i / 200, lon: HUBS[i % 2].lon, airports: [i % 2 ? "LHR" : "JFK"] }));
    await harness.indexed();
    const cache = harness.services.searchAnswers;
    let hitsAfterChanges = 0;

    const checkAll = async () => {
      for (const { auth, caller } of callers)
        for (const query of QUERIES) {
          const hitsBefore = cache.hits;
          const res = await harness.request("GET", `/api/search/fleet?${query}`, { headers: auth });
          expect(res.status).toBe(200);
          const fresh = JSON.stringify({ success: true, data: searchFleet(harness.services.searchFleet, caller, Object.fromEntries(new URLSearchParams(query))) });
          expect(res.text).toBe(fresh);
          hitsAfterChanges += cache.hits - hitsBefore;
        }
    };

    await checkAll();
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 5 }), async (changes) => {
        for (const c of changes) {
          const slug = slugs.length > 0 && "pick" in c ? slugs[c.pick % slugs.length] : undefined;
          const patch = (body: Record<string, unknown>) => harness.request("PATCH", `/api/fleet/${slug}`, { body, headers: pro.auth });
          if (c.kind === "full rebuild") await harness.services.fleetIndex.rebuildNow();
          else if (c.kind === "add") slugs.push(await addVehicle(harness, pro.auth, { ...position(c.place), airports: airportOf(c.place), type: c.type, name: c.name }));
          else if (!slug) continue;
          else if (c.kind === "move") expect((await patch({ ...position(c.place), airports: airportOf(c.place) })).status).toBe(200);
          else if (c.kind === "text") expect((await patch({ name: c.name, type: c.type, description: `${c.name} ${c.type} "quoted" \\ ünïcode`, maxLuggage: c.name === "Escalade" ? null : 4 })).status).toBe(200);
          else if (c.kind === "airports") expect((await patch({ airports: [c.hub === 0 ? "JFK" : "LHR"] })).status).toBe(200);
          else if (c.kind === "deactivate") expect((await patch({ active: false })).status).toBe(200);
          else {
            expect((await harness.request("DELETE", `/api/fleet/${slug}`, { headers: pro.auth })).status).toBe(200);
            slugs.splice(slugs.indexOf(slug), 1);
          }
          await harness.indexed();
          await checkAll();
        }
      }),
      { numRuns: 15, seed: 21 },
    );
    // The changes above touch one hub at a time: answers about the other one stay cached through them.
    expect(hitsAfterChanges).toBeGreaterThan(0);
  }, 120_000);
});
