// Part 4: freshness at 1M entries — time from a fleet change (PATCH acknowledged) to its visibility in
// search, and search p99 under wrk while changes arrive continuously, against idle p99 in the same run.
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { BENCH_DIR, removeDatabase, BENCH_OPERATORS, BENCH_PASSWORD, fixtureDatabase } from "./fixtures";
import { wrk } from "./load";
import { median, percentile, printFigure, SMOKE, type Figure } from "./report";
import { coreToken, startService } from "./http-search";
import { searchQueries, VARIANTS } from "./search";

export interface FreshnessBenchOptions {
  size: number;
  changes: number;
  runs: number;
  seconds: number;
  connections: number;
  changesPerSecond: number;
}

export const DEFAULT_FRESHNESS_OPTIONS: FreshnessBenchOptions = SMOKE
  ? { size: 2_000, changes: 3, runs: 1, seconds: 1, connections: 50, changesPerSecond: 20 }
  : { size: 1_000_000, changes: 15, runs: 3, seconds: 5, connections: 64, changesPerSecond: 50 };

async function operatorToken(base: string, netid: string): Promise<string> {
  const res = await fetch(`${base}/api/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: netid, pw: BENCH_PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
}

export async function benchFreshness(options: FreshnessBenchOptions = DEFAULT_FRESHNESS_OPTIONS): Promise<Figure[]> {
  const fixture = await fixtureDatabase(options.size);
  const dbPath = join(BENCH_DIR, `freshness-${process.pid}.sqlite`);
  removeDatabase(dbPath);
  copyFileSync(fixture, dbPath);
  const owner = BENCH_OPERATORS[0];
  const reader = new Database(dbPath, { readonly: true });
  const vehicles = reader.query<{ slug: string; lat: number; lon: number }, [string]>("SELECT slug, lat, lon FROM fleet_entries WHERE netid = ? AND lat IS NOT NULL LIMIT 2000").all(owner);
  reader.close();
  console.log(`[freshness] ${options.size.toLocaleString("en-US")} entries: starting the service`);
  const { child, base } = await startService(dbPath);
  const visibleAfter: number[] = [];
  const idle: Array<{ p99Ms: number }> = [];
  const busy: Array<{ p99Ms: number }> = [];
  let changesMade = 0;
  try {
    const searchAuth = { authorization: `Bearer ${await coreToken(base)}` };
    const ownerAuth = { authorization: `Bearer ${await operatorToken(base, owner)}`, "content-type": "application/json" };
    const change = async (n: number) => {
      const v = vehicles[n % vehicles.length];
      const marker = `fresh${process.pid}x${n}`;
      const res = await fetch(`${base}/api/fleet/${v.slug}`, { method: "PATCH", headers: ownerAuth, body: JSON.stringify({ description: `Recently changed ${marker}` }) });
      if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${await res.text()}`);
      changesMade++;
      return { v, marker };
    };

    // Visibility: one change at a time, polled every 2 ms (bounded at 5 s each).
    for (let n = 0; n < options.changes; n++) {
      const started = performance.now();
      const { v, marker } = await change(n);
      const url = `${base}/api/search/fleet?lat=${v.lat}&lon=${v.lon}&radius_km=1&q=${marker}`;
      let seen = Infinity;
      while (performance.now() - started < 5000) {
        const body = (await (await fetch(url, { headers: searchAuth })).json()) as { data: { items: Array<{ slug: string }> } };
        if (body.data.items.some((i) => i.slug === v.slug)) {
          seen = performance.now() - started;
          break;
        }
        await Bun.sleep(2);
      }
      visibleAfter.push(seen);
    }
    console.log(`[freshness] visibility measured (${visibleAfter.map((v) => v.toFixed(0)).join(", ")} ms); now search under load, idle and with changes`);

    const paths = searchQueries(500, VARIANTS[0], 13).map((q) => `/api/search/fleet?${new URLSearchParams(q)}`);
    const load = { seconds: options.seconds, connections: options.connections, headers: searchAuth };
    if (!SMOKE) await wrk(base, paths, { ...load, seconds: 1 });
    let n = 1000;
    for (let r = 0; r < options.runs; r++) {
      idle.push(await wrk(base, paths, load));
      // Changes at a steady rate for as long as the load runs (bounded by its duration).
      let running = true;
      const changer = (async () => {
        const interval = 1000 / options.changesPerSecond;
        const start = performance.now();
        for (let k = 1; running && performance.now() - start < (options.seconds + 2) * 1000; k++) {
          await change(n++);
          const wait = start + k * interval - performance.now();
          if (wait > 0) await Bun.sleep(Math.min(wait, interval));
        }
      })();
      busy.push(await wrk(base, paths, load));
      running = false;
      await changer;
    }
  } finally {
    await child.stop();
    removeDatabase(dbPath);
  }
  const label = options.size.toLocaleString("en-US");
  const figures: Figure[] = [
    {
      part: "freshness",
      name: `change visible in search at ${label} (PATCH sent → found; ${visibleAfter.length} changes; p99 ${percentile(visibleAfter, 99).toFixed(1)} ms)`,
      unit: "ms",
      measured: visibleAfter,
      better: "lower",
      target: { value: 1000, text: "≤ 1 s" },
    },
    {
      part: "freshness",
      name: `search p99 at ${label} while ${options.changesPerSecond} changes/s arrive (${changesMade} changes in all)`,
      unit: "ms",
      measured: busy.map((b) => b.p99Ms),
      baseline: { name: "idle search p99 (no changes), same load", runs: idle.map((i) => i.p99Ms) },
      better: "lower",
      target: { ratio: 2, text: "≤ 2× idle p99" },
    },
  ];
  figures.forEach(printFigure);
  console.log(`[freshness] visibility ms: median ${median(visibleAfter).toFixed(1)}, all: ${visibleAfter.map((v) => v.toFixed(0)).join(", ")}`);
  return figures;
}

if (import.meta.main) await benchFreshness();
