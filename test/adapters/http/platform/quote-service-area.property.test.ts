import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { greatCircleKm } from "../../../../domain/geo";
import { PackagedAirportDirectory } from "../../../../adapters/airports/directory";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, party, quoteTrip, sendTrip, type FleetFixture, type Party } from "../../../support/trips";

type Json = Record<string, any>;

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party;

/**
 * US airports close enough together that radii of a few hundred km overlap (their country's currency is USD), at the
 * positions the service's airport directory holds (a radius of 1 km is drawn: another source's position would miss).
 */
const directory = new PackagedAirportDirectory();
const AIRPORTS: Record<string, { lat: number; lon: number }> = Object.fromEntries(
  ["JFK", "EWR", "LGA", "BOS", "PHL"].map((code) => [code, { lat: directory.lookup(code)!.lat, lon: directory.lookup(code)!.lon }]),
);
const CODES = Object.keys(AIRPORTS);

interface Vehicle extends FleetFixture {
  lat: number | null;
  lon: number | null;
  airports: string[];
  currency: string;
  active: boolean;
}

const vehicle = fc.record({
  near: fc.constantFrom(...CODES),
  dLat: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
  dLon: fc.double({ min: -1.5, max: 1.5, noNaN: true }),
  located: fc.boolean(),
  airports: fc.subarray(CODES, { maxLength: 3 }),
  active: fc.boolean(),
  maxPassengers: fc.integer({ min: 1, max: 8 }),
  maxLuggage: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null }),
  currency: fc.constantFrom("USD", "USD", "EUR"),
  hourlyRate: fc.integer({ min: 20, max: 400 }),
});

const pickup = fc.oneof(
  fc.record({ airport: fc.constantFrom(...CODES) }),
  fc.record({ near: fc.constantFrom(...CODES), dLat: fc.double({ min: -1, max: 1, noNaN: true }), dLon: fc.double({ min: -1, max: 1, noNaN: true }) }),
);

const round = (x: number) => Math.round(x * 1e5) / 1e5;

/** The brute-force answer: the fitting serving vehicles of the quote's currency, and how many fitting ones were left out. */
function oracle(fleet: Vehicle[], at: { lat: number; lon: number }, airport: string | undefined, radiusKm: number, pax: number, luggage: number | undefined) {
  const serving = fleet.filter(
    (v) => v.active && ((airport !== undefined && v.airports.includes(airport)) || (v.lat !== null && v.lon !== null && greatCircleKm(at.lat, at.lon, v.lat, v.lon) <= radiusKm)),
  );
  const fitting = serving.filter((v) => v.maxPassengers >= pax && (luggage === undefined || (v.maxLuggage !== null && v.maxLuggage >= luggage)));
  const counts = new Map<string, number>();
  for (const v of fitting) counts.set(v.currency, (counts.get(v.currency) ?? 0) + 1);
  const currency = counts.has("USD") ? "USD" : [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  return { serving, fitting, currency, inCurrency: fitting.filter((v) => v.currency === currency) };
}

beforeAll(async () => {
  h = createHarness({ clock });
  requester = await party(h, "PROP-BOOKER", "CO");
});

afterAll(async () => {
  await h.close();
});

describe("quote options against a brute-force oracle", () => {
  test("every option's vehicle serves the pickup; below the cap of 20 no serving active vehicle that fits is missing", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(vehicle, { maxLength: 30 }),
        pickup,
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        async (specs, where, radiusKm, pax, luggage) => {
          const provider = await h.registerCompany({ netid: `PROP-${process.pid}-${++run}`, coType: "IO" });
          const fleet: Vehicle[] = specs.map((s, i) => ({
            slug: `prop-${run}-${i}`,
            maxPassengers: s.maxPassengers,
            maxLuggage: s.maxLuggage,
            lat: s.located ? round(AIRPORTS[s.near].lat + s.dLat) : null,
            lon: s.located ? round(AIRPORTS[s.near].lon + s.dLon) : null,
            airports: s.airports,
            currency: s.currency,
            active: s.active,
            hourlyRate: `${s.hourlyRate}.00`,
          }));
          if (fleet.length > 0) await insertFleet(h, provider.netid, fleet);
          const jwt = await h.coreToken(provider.netid, provider.password);
          const set = await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${jwt}` }, body: { serviceRadiusKm: radiusKm } });
          expect(set.status).toBe(200);

          const airport = "airport" in where ? where.airport : undefined;
          const at = "airport" in where ? AIRPORTS[where.airport] : { lat: round(AIRPORTS[where.near].lat + where.dLat), lon: round(AIRPORTS[where.near].lon + where.dLon) };
          const place: Json = airport ? { locationType: "airport", address: airport } : { locationType: "address", address: "somewhere", lat: String(at.lat), lon: String(at.lon) };
          const res = await sendTrip(
            h,
            requester,
            quoteTrip(requester.netid, provider.netid, {
              passengerCount: String(pax),
              ...(luggage !== undefined ? { luggageCount: String(luggage) } : {}),
              preferredVehicleType: undefined,
              locations: { pickup: { ...place, time: "2027-03-10T10:00:00" } },
            }),
          );
          expect(res.status).toBe(200);
          const expected = oracle(fleet, at, airport, radiusKm, pax, luggage);
          const options = res.body.fees as Json[];
          const bySlug = new Map(fleet.map((v) => [v.slug, v]));
          for (const o of options) expect(expected.fitting.map((v) => v.slug)).toContain(o.code);
          for (const o of options) expect(o.currency).toBe(expected.currency);
          expect(options.length).toBe(Math.min(20, expected.inCurrency.length));
          if (options.length < 20) expect(options.map((o) => o.code).sort()).toEqual(expected.inCurrency.map((v) => v.slug).sort());
          for (const o of options) expect(bySlug.get(o.code)?.active).toBe(true);
          const codes = (res.body.warnings as Json[]).map((w) => w.code);
          if (expected.serving.length === 0) expect(codes).toEqual(["NO_VEHICLE_NEAR_PICKUP"]);
          const leftOut = expected.fitting.length - expected.inCurrency.length;
          if (leftOut > 0) expect(res.body.warnings).toContainEqual(expect.objectContaining({ code: "OTHER_CURRENCIES_LEFT_OUT", count: leftOut }));
          else expect(codes).not.toContain("OTHER_CURRENCIES_LEFT_OUT");
        },
      ),
      {
        numRuns: 40,
        // Found by CI: a vehicle at the airport's position and a 1 km radius (the oracle once held another position of BOS).
        examples: [
          [
            [{ near: "BOS", dLat: 0, dLon: 0, located: true, airports: [], active: true, maxPassengers: 1, maxLuggage: null, currency: "USD", hourlyRate: 20 }],
            { airport: "BOS" },
            1,
            1,
            undefined,
          ],
        ],
      },
    );
  }, 120_000);
});
