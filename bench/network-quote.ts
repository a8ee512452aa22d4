// Part: network quote latency. POST /api/quotes (every provider's serving vehicles around a pickup, priced, ranked
// and stored) against GET /api/search/fleet over the same circle, both through the whole HTTP app in process
// (app.handle), alternated request by request in the same run, on the 100k fixture fleet spread over 1,000 providers.
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { BackgroundCheckpointer } from "../adapters/sqlite/checkpointer";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { BENCH_DIR, BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";
import { searchQueries, VARIANTS } from "./search";

export interface NetworkQuoteBenchOptions {
  size: number;
  providers: number;
  runs: number;
  /** Requests of each kind per run. */
  requests: number;
}

export const DEFAULT_NETWORK_QUOTE_OPTIONS: NetworkQuoteBenchOptions = SMOKE
  ? { size: 2_000, providers: 50, runs: 1, requests: 50 }
  : { size: 100_000, providers: 1_000, runs: 3, requests: 1_000 };

/** A copy of the fixture with its fleet dealt over `providers` companies (each a copy of an operator's row). */
export function spreadOverProviders(source: string, providers: number): string {
  const path = join(BENCH_DIR, `network-quote-${process.pid}.sqlite`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  copyFileSync(source, path);
  const sqlite = new Database(path);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.transaction(() => {
    const copy = sqlite.query(
      "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) SELECT ?1, lower(?1), 'Bench ' || ?1, 'IO', plan, lower(?1) || '@bench.example', '+1999' || ?2, created_at FROM companies WHERE netid = 'BENCH-OP-01'",
    );
    for (let i = 1; i <= providers; i++) copy.run(`BENCH-NQ-${String(i).padStart(4, "0")}`, String(1_000_000 + i));
    sqlite.run(`UPDATE fleet_entries SET netid = 'BENCH-NQ-' || printf('%04d', (rowid % ${providers}) + 1)`);
  })();
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();
  return path;
}

/** The process's CPU time so far, ms (every thread: the checkpoint worker's too). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Milliseconds of each call, in order (wall clock), and the CPU milliseconds each took (in `cpu`). */
export async function timedEach(calls: Array<() => Promise<Response>>, cpu?: number[]): Promise<number[]> {
  const out: number[] = [];
  for (const call of calls) {
    const started = performance.now();
    const cpuStarted = cpuMs();
    const res = await call();
    await res.arrayBuffer();
    out.push(performance.now() - started);
    cpu?.push(cpuMs() - cpuStarted);
    if (res.status !== 200) throw new Error(`bench request answered ${res.status}`);
  }
  return out;
}

export async function benchNetworkQuote(options: NetworkQuoteBenchOptions = DEFAULT_NETWORK_QUOTE_OPTIONS): Promise<Figure[]> {
  const path = spreadOverProviders(await fixtureDatabase(options.size), options.providers);
  const db = openDatabase(path);
  migrate(db);
  // One company asks every quote: the per-company bounds on stored quotes (2,000 an hour and 64 MiB kept,
  // docs/security.md#per-company-store-bounds; measured by bench:growth) are lifted so that this bench measures the
  // ranking, not the 429s (QUOTE_STORE_FULL stopped it part-way through its 4,000 quotes).
  const services = createServices(db, { jwtSecret: "bench-secret-that-is-at-least-32-bytes!", tokenTtlSeconds: 3600, storeBounds: { quotesPerHour: 1_000_000, quoteKeptBytes: 1e12 } });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  // As the served app runs (src/backend.ts): WAL checkpoints in a worker, not inside a request's commit.
  const checkpointer = await BackgroundCheckpointer.start(db.$client);
  try {
    await services.fleetIndex.rebuildNow();
    await services.fleetIndex.typeTreesReady();
    const login = await app.handle(new Request("http://localhost/api/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) }));
    const { token } = (await login.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const pickupTime = new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 19);
    const label = `${options.size.toLocaleString("en-US")} vehicles, ${options.providers.toLocaleString("en-US")} providers`;

    const quoteP50: number[] = [];
    const quoteP99: number[] = [];
    const searchP50: number[] = [];
    const searchP99: number[] = [];
    // CPU time per request (median per run): on a machine shared with other work, wall-clock tails mostly measure
    // the time the process waited for a core; CPU time shows the work each request does.
    const quoteCpu: number[] = [];
    const searchCpu: number[] = [];
    let options0 = 0;
    for (let run = 0; run <= options.runs; run++) {
      // Fresh centres every run (the search's answer cache never answers); run 0 warms up and is not counted.
      const centres = searchQueries(options.requests, VARIANTS[0], 100 + run);
      const quoteTimes: number[] = [];
      const searchTimes: number[] = [];
      const quoteCpuTimes: number[] = [];
      const searchCpuTimes: number[] = [];
      for (const c of centres) {
        const [q] = await timedEach([
          () =>
            app.handle(
              new Request("http://localhost/api/quotes", {
                method: "POST",
                headers,
                body: JSON.stringify({ passengerCount: "2", locations: { pickup: { locationType: "address", address: "bench pickup", lat: c.lat, lon: c.lon, time: pickupTime } } }),
              }),
            ),
        ], quoteCpuTimes);
        const [s] = await timedEach([() => app.handle(new Request(`http://localhost/api/search/fleet?lat=${c.lat}&lon=${c.lon}&radius_km=50&limit=20`, { headers }))], searchCpuTimes);
        quoteTimes.push(q);
        searchTimes.push(s);
      }
      if (run === 0) {
        const sample = await app.handle(
          new Request("http://localhost/api/quotes", {
            method: "POST",
            headers,
            body: JSON.stringify({ passengerCount: "2", locations: { pickup: { lat: centres[0].lat, lon: centres[0].lon, address: "bench pickup", time: pickupTime } } }),
          }),
        );
        options0 = ((await sample.json()) as { data: { options: unknown[] } }).data.options.length;
        continue;
      }
      quoteP50.push(percentile(quoteTimes, 50));
      quoteP99.push(percentile(quoteTimes, 99));
      searchP50.push(percentile(searchTimes, 50));
      searchP99.push(percentile(searchTimes, 99));
      quoteCpu.push(percentile(quoteCpuTimes, 50));
      searchCpu.push(percentile(searchCpuTimes, 50));
    }
    const figures: Figure[] = [
      {
        part: "network-quote",
        name: `POST /api/quotes p50 at ${label} (in process, app.handle)`,
        unit: "ms",
        measured: quoteP50,
        baseline: { name: "GET /api/search/fleet p50, same circles", runs: searchP50 },
        better: "lower",
        note: `a sample quote held ${options0} option(s)`,
      },
      {
        part: "network-quote",
        name: `POST /api/quotes p99 at ${label} (in process, app.handle)`,
        unit: "ms",
        measured: quoteP99,
        baseline: { name: "GET /api/search/fleet p99, same circles", runs: searchP99 },
        better: "lower",
        target: { ratio: 2, text: "p99 ≤ 2× the fleet search's p99" },
      },
      {
        part: "network-quote",
        name: `POST /api/quotes CPU time per request, p50, at ${label}`,
        unit: "ms",
        measured: quoteCpu,
        baseline: { name: "GET /api/search/fleet CPU time per request, p50, same circles", runs: searchCpu },
        better: "lower",
      },
    ];
    for (const f of figures) printFigure(f);
    console.log(`[network-quote] medians: quote p50 ${median(quoteP50).toFixed(2)} ms, p99 ${median(quoteP99).toFixed(2)} ms; search p50 ${median(searchP50).toFixed(2)} ms, p99 ${median(searchP99).toFixed(2)} ms; CPU per request p50: quote ${median(quoteCpu).toFixed(2)} ms, search ${median(searchCpu).toFixed(2)} ms`);
    return figures;
  } finally {
    await checkpointer.stop();
    await services.worker.stop();
    services.fleetIndex.close();
    db.$client.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  }
}

if (import.meta.main) await benchNetworkQuote();
