// Part 6: chauffeur tracking — 10,000 live bookings each pushing a position once a second, through the whole
// HTTP pipeline in-process (app.handle: routing, auth, parsing, validation, the store), one simulated second at a
// time, against the naive design measured in the same run: one position upserted per transaction (WAL,
// synchronous=FULL), the way a row per push would be written.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { SqlitePositionStore } from "../adapters/sqlite/position-store";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { median, printFigure, SMOKE, type Figure } from "./report";

export interface TrackingBenchOptions {
  bookings: number;
  /** Simulated seconds (rounds) per run. */
  seconds: number;
  runs: number;
}

export const DEFAULT_TRACKING_OPTIONS: TrackingBenchOptions = SMOKE ? { bookings: 300, seconds: 2, runs: 1 } : { bookings: 10_000, seconds: 10, runs: 3 };

/** Upserts one position per transaction for `seconds`, as fast as the disk acknowledges them. */
function naiveUpsertRate(path: string, seconds: number): number {
  removeDatabase(path);
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE positions (transaction_id TEXT PRIMARY KEY, lat REAL, lon REAL, at INTEGER)");
  const upsert = db.query("INSERT INTO positions VALUES (?, ?, ?, ?) ON CONFLICT (transaction_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon, at = excluded.at");
  const start = performance.now();
  let n = 0;
  // Bounded by time and count.
  while (performance.now() - start < seconds * 1000 && n < 10_000_000) {
    upsert.run(`booking-${n % 10_000}`, 40 + (n % 100) / 1000, -73, n);
    n++;
  }
  const rate = n / ((performance.now() - start) / 1000);
  db.close();
  removeDatabase(path);
  return rate;
}

interface Run {
  /** Positions a second the service absorbed: a simulated second's pushes over the time they took. */
  bulkRate: number;
  singleRate: number;
}

async function oneRun(options: TrackingBenchOptions, path: string): Promise<Run> {
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  let simulated = Math.floor(Date.now() / 1000);
  const clock = { now: () => simulated };
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes-long", tokenTtlSeconds: 3600 }, clock, {});
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1 << 20, readiness: { ready: true } });
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.handle(new Request(`http://localhost${url}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const password = "correct horse battery staple";
  const register = (netid: string, coType: string, phone: string) =>
    call("POST", "/api/company/register", { name: netid, netid, mainEmail: `${netid.toLowerCase()}@bench.example`, password, confirmPassword: password, mainPhone: phone, coType });
  await register("TRACK-OPS", "IO", "+12125550301");
  await register("TRACK-PLATFORM", "CO", "+12125550302");
  const provider = { token: await call("POST", "/Platform.svc/getToken2", { uid: "TRACK-OPS", pw: password }) };
  const requester = { token: await call("POST", "/Platform.svc/getToken2", { uid: "TRACK-PLATFORM", pw: password }) };

  const ids: string[] = [];
  for (let i = 0; i < options.bookings; i++) {
    const sent = await call(
      "POST",
      "/Platform.svc/sendTrip/V1",
      {
        passengerCount: "1",
        locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-01-15T08:00:00" } },
        passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
        affiliateReservation: { requesterId: "TRACK-PLATFORM", requesterResNo: `T-${i}`, providerId: "TRACK-OPS", action: "NEW" },
      },
      { token: requester.token },
    );
    ids.push(sent.transactionId);
  }

  const rounds = async (bulk: boolean): Promise<number> => {
    const rates: number[] = [];
    for (let s = 0; s < options.seconds; s++) {
      simulated += 1;
      const t0 = performance.now();
      if (bulk) {
        for (let i = 0; i < ids.length; i += 100) {
          const batch = ids.slice(i, i + 100).map((transactionId, k) => ({ transactionId, latitude: 40.6 + ((s + k) % 50) / 1000, longitude: -73.8 + (i % 50) / 1000 }));
          const res = await call("POST", "/api/GGPS.svc/GPSgrab", batch, { token: provider.token });
          if (res.data.accepted !== batch.length) throw new Error(`only ${res.data.accepted} of ${batch.length} positions accepted`);
        }
      } else {
        // 64 pushes in flight at a time, as many driver apps would send them.
        for (let i = 0; i < ids.length; i += 64)
          await Promise.all(ids.slice(i, i + 64).map((transactionId, k) => call("POST", "/api/GGPS.svc/saveGPScache", { transactionId, latitude: 40.6 + ((s + k) % 50) / 1000, longitude: -73.8 }, { token: provider.token })));
      }
      // The round's positions are on disk before the round counts as done.
      await services.positions.flush();
      rates.push(ids.length / ((performance.now() - t0) / 1000));
    }
    return median(rates);
  };
  const bulkRate = await rounds(true);
  const singleRate = await rounds(false);
  await services.worker.stop();
  services.positions.close();
  services.fleetIndex.close();
  db.$client.close();
  removeDatabase(path);
  return { bulkRate, singleRate };
}

/**
 * The heap the store holds for `bookings` bookings after ten positions each (measured on the store alone: app.handle
 * keeps ~1 KB per request while an Elysia onAfterResponse hook is registered, which a served app does not).
 */
function storeHeapMb(bookings: number, path: string): number {
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  Bun.gc(true);
  const before = process.memoryUsage().heapUsed;
  const store = new SqlitePositionStore(db);
  const ids = Array.from({ length: bookings }, () => crypto.randomUUID());
  for (let s = 0; s < 10; s++) {
    for (const id of ids) store.save(id, { lat: 40.6 + s / 1000, lon: -73.8, timestamp: new Date().toISOString(), receivedAt: Date.now(), chfName: "Sam Lee", chfId: "CH-12" });
    store.flush();
  }
  Bun.gc(true);
  const heapMb = (process.memoryUsage().heapUsed - before) / 1e6;
  store.close();
  db.$client.close();
  removeDatabase(path);
  return heapMb;
}

export async function benchTracking(options: TrackingBenchOptions = DEFAULT_TRACKING_OPTIONS): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, "tracking.sqlite");
  const runs: Run[] = [];
  const naive: number[] = [];
  const heap: number[] = [];
  // Alternated, so that a noisy stretch of the machine hits both.
  for (let r = 0; r < options.runs; r++) {
    naive.push(naiveUpsertRate(join(BENCH_DIR, "tracking-naive.sqlite"), SMOKE ? 0.2 : 2));
    runs.push(await oneRun(options, path));
    heap.push(storeHeapMb(options.bookings, path));
  }
  const n = options.bookings.toLocaleString("en-US");
  const baseline = { name: "naive: one position upserted per transaction (FULL)", runs: naive };
  const figures: Figure[] = [
    {
      part: "tracking",
      name: `positions absorbed, ${n} bookings pushing once a second, GPSgrab batches of 100 (in-process HTTP pipeline)`,
      unit: "positions/s",
      measured: runs.map((r) => r.bulkRate),
      baseline,
      better: "higher",
      target: { value: 10_000, text: "≥ 10,000 positions/s (10,000 bookings once a second)" },
    },
    {
      part: "tracking",
      name: `positions absorbed, ${n} bookings, one saveGPScache per position, 64 in flight (in-process HTTP pipeline)`,
      unit: "positions/s",
      measured: runs.map((r) => r.singleRate),
      baseline,
      better: "higher",
      target: { value: 10_000, text: "≥ 10,000 positions/s" },
    },
    {
      part: "tracking",
      name: `heap the position store holds for ${n} bookings (ten positions each; after a full collection)`,
      unit: "MB",
      measured: heap,
      better: "lower",
    },
  ];
  for (const f of figures) printFigure(f);
  return figures;
}
