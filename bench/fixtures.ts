import type { FleetIndexRow } from "../adapters/sqlite/fleet-source";
// Deterministic benchmark fixtures: fleets clustered around real airports, with uniform noise and a
// realistic mix of vehicle types, written straight into a migrated SQLite file.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Database } from "bun:sqlite";
import { migrate, openDatabase, type Db } from "../adapters/sqlite/db";
import { createServices } from "../src/services";
import { registerCompany } from "../domain/usecases/register-company";
import { PackagedAirportDirectory } from "../adapters/airports/directory";
import { mulberry32 } from "../src/demo/fleet";
import { tracked } from "./processes";

/** Busy airports the fixture fleets cluster around (weights follow their rank: the first are the busiest). */
export const BENCH_AIRPORTS = [
  "ATL", "DFW", "DEN", "ORD", "DXB", "LAX", "IST", "LHR", "DEL", "CDG", "JFK", "LAS", "AMS", "MIA", "MAD", "HND", "MCO", "FRA", "CLT", "MEX",
  "SEA", "PHX", "EWR", "SFO", "BCN", "IAH", "CGK", "BOM", "YYZ", "DOH", "BOS", "GRU", "FLL", "MSP", "ICN", "SIN", "MUC", "FCO", "LGA", "SYD",
  "DTW", "PHL", "NRT", "HKG", "BKK", "ZRH", "VIE", "DUB", "MAN", "LGW", "ORY", "CPH", "OSL", "ARN", "HEL", "LIS", "ATH", "PRG", "WAW", "BRU",
] as const;

/** Share of each type in the fleet (sedans dominate, coaches are rare). */
const TYPE_MIX = [
  { type: "SEDAN", share: 0.34, models: ["Lincoln Continental", "Mercedes-Benz E-Class", "BMW 5 Series", "Cadillac CT6", "Audi A6", "Toyota Camry Hybrid"], pax: [3, 3], bags: [2, 3], minimum: 75, hourly: 65 },
  { type: "SEDAN_LUXURY", share: 0.12, models: ["Mercedes-Benz S-Class", "BMW 7 Series", "Audi A8 L"], pax: [3, 3], bags: [2, 3], minimum: 120, hourly: 95 },
  { type: "SUV", share: 0.26, models: ["Cadillac Escalade", "Chevrolet Suburban", "GMC Yukon XL", "Lincoln Navigator"], pax: [5, 6], bags: [4, 6], minimum: 110, hourly: 90 },
  { type: "VAN_MINI", share: 0.1, models: ["Mercedes-Benz V-Class", "Chrysler Pacifica", "Volkswagen Multivan"], pax: [6, 7], bags: [5, 7], minimum: 120, hourly: 95 },
  { type: "SPRINTER", share: 0.08, models: ["Mercedes-Benz Sprinter Executive", "Ford Transit Luxury"], pax: [10, 14], bags: [10, 14], minimum: 180, hourly: 140 },
  { type: "LIMO", share: 0.05, models: ["Lincoln MKT Stretch", "Chrysler 300 Stretch", "Cadillac Escalade Stretch"], pax: [8, 10], bags: [3, 4], minimum: 250, hourly: 160 },
  { type: "BUS", share: 0.03, models: ["Mini Coach 28", "Party Bus 30"], pax: [24, 30], bags: [20, 28], minimum: 350, hourly: 190 },
  { type: "COACH", share: 0.02, models: ["MCI J4500", "Van Hool CX45", "Setra S 516 HD"], pax: [49, 56], bags: [49, 56], minimum: 650, hourly: 240 },
] as const;

export const BENCH_TYPES = TYPE_MIX.map((t) => t.type);
const FEATURES = ["leather seats", "Wi-Fi", "bottled water", "phone chargers", "child seat on request", "meet & greet", "flight tracking", "tinted windows"];
const COLOURS = ["Black", "Black", "Black", "Silver", "White", "Dark grey"];
/** Operators owning the fixture fleet (netids), and the platform that searches and sends trips. */
export const BENCH_OPERATORS = Array.from({ length: 40 }, (_, i) => `BENCH-OP-${String(i + 1).padStart(2, "0")}`);
export const BENCH_PLATFORM = "BENCH-PLATFORM";
export const BENCH_PASSWORD = "bench password that is long enough";
/** Share of entries placed uniformly over the inhabited latitudes instead of near an airport. */
const NOISE_SHARE = 0.05;
const SEED = 20260611;

/** A fixture row has the shape the index reads from SQLite. */
export type FleetRowFixture = FleetIndexRow;

/** Airport centres of the fixture (lat, lon), in BENCH_AIRPORTS order. */
export function benchCentres(): Array<{ code: string; lat: number; lon: number }> {
  const directory = new PackagedAirportDirectory();
  return BENCH_AIRPORTS.map((code) => {
    const a = directory.lookup(code);
    if (!a) throw new Error(`bench airport ${code} is not in the directory`);
    return { code, lat: a.lat, lon: a.lon };
  });
}

/**
 * The fixture fleet of `n` entries, entry by entry (deterministic for n and the seed): 95% within ~40 km
 * of an airport (busier airports get more), 5% anywhere between 60°S and 70°N; about 1% without a position.
 */
export function* fixtureFleet(n: number, seed = SEED): Generator<FleetRowFixture> {
  const random = mulberry32(seed);
  const centres = benchCentres();
  // Zipf-like weights: the k-th busiest airport gets 1/(k+5) of the mass.
  const weights = centres.map((_, k) => 1 / (k + 5));
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w));
  const pickAirport = () => {
    const x = random() * sum;
    let k = 0;
    while (cumulative[k] < x) k++;
    return k;
  };
  const typeCumulative: number[] = [];
  let typeSum = 0;
  for (const t of TYPE_MIX) typeCumulative.push((typeSum += t.share));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  for (let i = 0; i < n; i++) {
    const x = random() * typeSum;
    let t = 0;
    while (typeCumulative[t] < x) t++;
    const cls = TYPE_MIX[t];
    const model = pick(cls.models);
    const colour = pick(COLOURS);
    const netid = BENCH_OPERATORS[Math.floor(random() * BENCH_OPERATORS.length)];
    const a = centres[pickAirport()];
    let lat: number | null;
    let lon: number | null;
    if (random() < NOISE_SHARE) {
      lat = round6(-60 + 130 * random());
      lon = round6(-180 + 360 * random());
    } else {
      const distance = 40 * Math.sqrt(random());
      const bearing = 2 * Math.PI * random();
      lat = round6(a.lat + (distance * Math.cos(bearing)) / 111.2);
      lon = round6(wrapLon(a.lon + (distance * Math.sin(bearing)) / (111.2 * Math.max(0.2, Math.cos((a.lat * Math.PI) / 180)))));
    }
    if (random() < 0.01) lat = lon = null;
    const feature = pick(FEATURES);
    const surcharge = between(0, 8) * 5;
    yield {
      slug: `${netid.toLowerCase()}-${model.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${i}`,
      netid,
      type: cls.type,
      name: `${colour} ${model}`,
      description: `${model} near ${a.code}; ${feature}.`,
      imageUrl: random() < 0.6 ? `https://images.tripswitch.example/fleet/${cls.type.toLowerCase()}-${between(1, 12)}.jpg` : null,
      maxPassengers: between(cls.pax[0], cls.pax[1]),
      maxLuggage: random() < 0.1 ? null : between(cls.bags[0], cls.bags[1]),
      lat,
      lon,
      airports: a.code,
      minimumRate: `${cls.minimum + surcharge}.00`,
      hourlyRate: `${cls.hourly + surcharge}.${random() < 0.5 ? "50" : "00"}`,
      currency: "USD",
    };
  }
}

export const BENCH_DIR = process.env.BENCH_DIR ?? join(tmpdir(), "tripswitch-bench");

/** Removes a database file with its WAL, shared-memory file and the fleet index the service saved beside it. */
export function removeDatabase(path: string): void {
  for (const suffix of ["", "-wal", "-shm", ".fleet-index"]) rmSync(path + suffix, { force: true });
}

/** What a bench's in-process service started: stopped, its database closed and its files removed (`removeDatabase`). */
export async function closeBenchService(
  services: { worker: { stop(): Promise<void> }; positions: { close(): void | Promise<void> }; fleetIndex: { close(): void } },
  db: { $client: { close(): void } },
  path: string,
): Promise<void> {
  await services.worker.stop();
  await services.positions.close();
  services.fleetIndex.close();
  db.$client.close();
  removeDatabase(path);
}

/**
 * A copy-free path to a migrated database holding the fixture fleet of `n` entries, built once and reused.
 * It is built by a child process: building leaves the connection's prepared statements behind, which keeps the
 * file open in the builder, and a later connection to the renamed file in that same process could not read it.
 */
export async function fixtureDatabase(n: number): Promise<string> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `fleet-${n}-v1.sqlite`);
  if (existsSync(path)) return path;
  const proc = tracked(Bun.spawn([process.execPath, import.meta.path, String(n), path], { env: { ...process.env, BENCH_DIR }, stdout: "inherit", stderr: "pipe" }));
  const killer = setTimeout(() => proc.kill("SIGKILL"), 15 * 60_000);
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(killer);
  if (code !== 0 || !existsSync(path)) throw new Error(`building the ${n}-entry fixture failed (${code}): ${err}`);
  return path;
}

/** Builds the fixture of `n` entries at `path` (through a temporary name, so a half-built file is never used). */
async function buildFixture(n: number, path: string): Promise<void> {
  const building = `${path}.building`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(building + suffix, { force: true });
  const db = openDatabase(building);
  migrate(db);
  await seedCompanies(db);
  insertFleet(db.$client, n);
  db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.$client.close();
  for (const suffix of ["-wal", "-shm"]) rmSync(building + suffix, { force: true });
  renameSync(building, path);
}

if (import.meta.main) {
  const [n, path] = process.argv.slice(2);
  await buildFixture(Number(n), path);
  process.exit(0);
}

/** The operators and the searching platform (PROFESSIONAL), registered through the real use case; password BENCH_PASSWORD. */
async function seedCompanies(db: Db): Promise<void> {
  const services = createServices(db, { jwtSecret: "bench-fixture-secret-at-least-32-bytes!!", tokenTtlSeconds: 3600 });
  try {
    for (const [i, netid] of [BENCH_PLATFORM, ...BENCH_OPERATORS].entries()) {
      await registerCompany(services.registration, {
        netid,
        name: `Bench ${netid}`,
        coType: netid === BENCH_PLATFORM ? "CO" : "IO",
        mainEmail: `ops${i}@bench.example`,
        mainPhone: `+1212555${String(1000 + i)}`,
        password: BENCH_PASSWORD,
        confirmPassword: BENCH_PASSWORD,
      });
    }
    await services.companies.setPlan(BENCH_PLATFORM, "PROFESSIONAL");
  } finally {
    services.fleetIndex.close();
  }
}

function insertFleet(sqlite: Database, n: number): void {
  const insert = sqlite.query(
    "INSERT INTO fleet_entries (slug, netid, type, name, description, image_url, max_passengers, max_luggage, lat, lon, airports, minimum_rate, hourly_rate, currency, active, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,'USD',1,0,0)",
  );
  const batch = 50_000;
  const rows = fixtureFleet(n);
  for (let done = 0; done < n; done += batch) {
    sqlite.transaction(() => {
      for (let i = 0; i < batch && done + i < n; i++) {
        const r = rows.next().value as FleetRowFixture;
        insert.run(r.slug, r.netid, r.type, r.name, r.description, r.imageUrl, r.maxPassengers, r.maxLuggage, r.lat, r.lon, r.airports, r.minimumRate, r.hourlyRate);
      }
    })();
  }
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function wrapLon(lon: number): number {
  return lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon;
}
