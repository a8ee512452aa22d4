// Part 8: a QUOTE sent to a provider with 50,000 vehicles against one sent to a provider with 50, in the same run,
// through the whole HTTP pipeline in-process (app.handle: auth, validation, placing the pickup, the serving vehicles
// through the geo index, pricing, the stored quote and its outbox row). Both fleets are spread over the same busy
// airports (the fixture's mix), so the big provider has ~1,000 times as many vehicles serving each pickup's region
// of the world and as many more that do not serve it.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildApp, createServices } from "../src/app";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { registerCompany } from "../domain/usecases/register-company";
import { BENCH_DIR, fixtureFleet, removeDatabase } from "./fixtures";
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
const PROVIDERS = { big: "QUOTE-BIG", small: "QUOTE-SMALL", others: "QUOTE-OTHERS" } as const;
const PLATFORM = "QUOTE-PLATFORM";
/** Pickups the quotes rotate through: busy airports on four continents, all in the fixture. */
const PICKUPS = ["JFK", "LHR", "ATL", "CDG", "DXB", "LAX", "HND", "ORD"];

/** Writes `n` fixture entries owned by `netid` straight into the database (slugs prefixed by the netid). */
function insertOwned(sqlite: import("bun:sqlite").Database, netid: string, n: number, seed: number): void {
  const insert = sqlite.query(
    "INSERT INTO fleet_entries (slug, netid, type, name, description, image_url, max_passengers, max_luggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,'USD',1,0,0)",
  );
  sqlite.transaction(() => {
    for (const r of fixtureFleet(n, seed)) {
      insert.run(`${netid.toLowerCase()}-${r.slug}`, netid, r.type, r.name, r.description, r.imageUrl, r.maxPassengers, r.maxLuggage, r.lat, r.lon, r.airports, r.minimumRate, r.hourlyRate);
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
          locations: { pickup: { locationType: "airport", address: PICKUPS[i % PICKUPS.length], time: pickupTime }, dropOff: { address: "downtown", lat: "40.758", lon: "-73.9855" } },
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
      await quote(PROVIDERS.small, i);
    }
    const bigRounds: number[] = [];
    const smallRounds: number[] = [];
    const bigAll: number[] = [];
    const smallAll: number[] = [];
    const offered = { big: 0, small: 0 };
    for (let r = 0; r < options.rounds; r++) {
      const big: number[] = [];
      const small: number[] = [];
      // Alternated one by one, so a noisy stretch of the machine hits both.
      for (let i = 0; i < options.quotes; i++) {
        const b = await quote(PROVIDERS.big, i);
        const s = await quote(PROVIDERS.small, i);
        big.push(b.ms);
        small.push(s.ms);
        offered.big += b.options;
        offered.small += s.options;
      }
      bigRounds.push(median(big));
      smallRounds.push(median(small));
      bigAll.push(...big);
      smallAll.push(...small);
    }
    const n = options.quotes * options.rounds;
    const figures: Figure[] = [
      {
        part: "quote",
        name: `QUOTE latency, provider with ${options.big.toLocaleString("en-US")} vehicles (in-process HTTP pipeline, pickups at ${PICKUPS.length} airports)`,
        unit: "ms",
        measured: bigRounds,
        baseline: { name: `the same QUOTE to a provider with ${options.small} vehicles`, runs: smallRounds },
        better: "lower",
        target: { ratio: 1.5, text: "≤ 1.5× the 50-vehicle provider's (median)" },
        note: `p99 ${percentile(bigAll, 99).toFixed(2)} ms vs ${percentile(smallAll, 99).toFixed(2)} ms; options offered per quote ${(offered.big / n).toFixed(1)} vs ${(offered.small / n).toFixed(1)}; ${options.others.toLocaleString("en-US")} other vehicles in the index`,
      },
    ];
    for (const f of figures) printFigure(f);
    return figures;
  } finally {
    await services.worker.stop();
    await services.positions.close();
    services.fleetIndex.close();
    db.$client.close();
    removeDatabase(path);
  }
}

if (import.meta.main) await benchQuote();
