import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { KdFleetSearchIndex } from "../../../../adapters/geo/fleet-index";
import { PackagedAirportDirectory } from "../../../../adapters/airports/directory";
import { SearchAnswerJson } from "../../../../adapters/http/core/search-answer-json";
import { JsonBytes } from "../../../../domain/shared/json-bytes";
import { planFleetSearch, runFleetSearch, type SearchFleetDeps } from "../../../../domain/usecases/search-fleet";
import type { IndexRow } from "../../../../domain/fleet/source";
import type { Plan } from "../../../../domain/company/plan";
import { rowsSource } from "../../geo/sources";

// The search answer is written as bytes straight from the index's columns; it must be exactly what
// JSON.stringify writes for the use case's result objects, whatever the fleet's text holds.
const airports = new PackagedAirportDirectory();
const JFK = airports.lookup("JFK")!;
const TYPES = ["SEDAN", "SUV", "BUS", "VAN_MINI"];

/** Any UTF-16 units: quotes, backslashes, controls, lone surrogates, pairs (emoji), accents. */
const unit = fc.oneof(
  fc.constantFrom('"', "\\", "\n", "\t", "\b", "\f", "\r", "\u0000", "\u001f", "\u007f", "\u2028", "é", "ß", "€", "😀", "\ud83d", "\ude00", "\udbff", "/", "<"),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
);
const text = fc.array(unit, { maxLength: 40 }).map((units) => units.join(""));
const rate = fc.oneof(fc.integer({ min: 0, max: 99_999_999 }).map((c) => (c / 100).toFixed(2)), fc.constantFrom("0", "12.5", "1e3", "0.10"));

const entry = fc.record({
  netid: fc.oneof(text, fc.constantFrom("OP-A", "OP-B")),
  type: fc.constantFrom(...TYPES),
  name: fc.oneof(text, fc.constantFrom("Mercédès S", "Escalade", "Blue Sedan")),
  description: text,
  imageUrl: fc.option(fc.oneof(text, fc.constant("https://img.example/a.png?x=\"1\"")), { nil: null }),
  maxPassengers: fc.integer({ min: 1, max: 2_000_000_000 }),
  maxLuggage: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  located: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
  dLat: fc.double({ min: -1, max: 1, noNaN: true }),
  dLon: fc.double({ min: -1, max: 1, noNaN: true }),
  airport: fc.constantFrom("JFK", "LGA"),
  minimumRate: rate,
  hourlyRate: rate,
});
type Entry = typeof entry extends fc.Arbitrary<infer E> ? E : never;

function row(slug: string, e: Entry): IndexRow {
  return {
    slug,
    netid: e.netid,
    type: e.type,
    name: e.name,
    description: e.description,
    imageUrl: e.imageUrl,
    maxPassengers: e.maxPassengers,
    maxLuggage: e.maxLuggage,
    lat: e.located ? JFK.lat + e.dLat : null,
    lon: e.located ? JFK.lon + e.dLon : null,
    airports: [e.airport],
    minimumRate: e.minimumRate,
    hourlyRate: e.hourlyRate,
    currency: "USD",
  };
}

const words = fc.constantFrom("", "merc", "sedan", "esc", "é", "bus x", "\"", "😀");
const query = fc.record({
  airports: fc.option(fc.constantFrom("JFK", "jfk,LGA", "XQZ,JFK", "LGA"), { nil: undefined }),
  position: fc.option(fc.record({ lat: fc.double({ min: -0.5, max: 0.5, noNaN: true }), lon: fc.double({ min: -0.5, max: 0.5, noNaN: true }) }), { nil: undefined }),
  types: fc.option(fc.subarray(TYPES, { minLength: 1 }).map((t) => t.join(",").toLowerCase()), { nil: undefined }),
  q: fc.option(words, { nil: undefined }),
  radius_km: fc.option(fc.constantFrom("1", "15.5", "50", "200", "1000"), { nil: undefined }),
  limit: fc.option(fc.integer({ min: 1, max: 100 }).map(String), { nil: undefined }),
  offset: fc.option(fc.integer({ min: 0, max: 60 }).map(String), { nil: undefined }),
  plan: fc.constantFrom<Plan>("FREE", "PROFESSIONAL"),
});

describe("fleet search answer written as bytes", () => {
  test("JsonBytes writes every string and number exactly as JSON.stringify does", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.string({ unit: "binary" }), fc.double(), fc.integer(), fc.constantFrom(-0, 1e21, 1e-7, 5e-324, 123456789, 999999999, 1e9)), { maxLength: 20 }), (values) => {
        const out = new JsonBytes(8);
        out.ascii("[");
        values.forEach((v, i) => {
          if (i > 0) out.ascii(",");
          if (typeof v === "string") out.string(v);
          else out.number(v);
        });
        out.ascii("]");
        expect(Buffer.from(out.bytes()).toString("hex")).toBe(Buffer.from(JSON.stringify(values)).toString("hex"));
      }),
      { numRuns: 500 },
    );
  });

  test("the answer's bytes equal JSON.stringify({ success: true, data }) of the use case's result, over random fleets, recent changes and queries", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 120 }), fc.array(entry, { maxLength: 8 }), fc.array(query, { minLength: 1, maxLength: 6 }), async (initial, changed, queries) => {
        const fleet = new Map<string, IndexRow>();
        initial.forEach((e, i) => fleet.set(`e-${i % 7}-${i}`, row(`e-${i % 7}-${i}`, e)));
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
          // Recent changes are answered from an overlay beside the base: pages merge both.
          const slugs = changed.map((e, i) => {
            const slug = `e-${i % 7}-${i}`;
            fleet.set(slug, row(slug, e));
            return slug;
          });
          if (slugs.length > 0) {
            index.fleetChanged(slugs);
            await index.whenFresh();
          }
          const deps: SearchFleetDeps = { index, airports, gazetteer: { city: () => undefined } };
          const encoder = new SearchAnswerJson(deps);
          for (const { plan: companyPlan, position, ...raw } of queries) {
            const params = { ...raw, ...(position ? { lat: String(position.lat + JFK.lat), lon: String(position.lon + JFK.lon) } : {}) };
            if (!params.airports && !position) params.airports = "JFK";
            const planned = planFleetSearch(deps, { uid: "u", netid: "OP-A", plan: companyPlan } as never, params);
            const expected = JSON.stringify({ success: true, data: runFleetSearch(deps, planned) });
            const bytes = encoder.encode(planned);
            expect(Buffer.from(bytes).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
