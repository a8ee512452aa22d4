// A probe beside the http part, in one process: CPU time per fleet search request at 100k entries through the
// lean handler Bun's router calls and through the app's Elysia route (app.handle), repeated and fresh searches,
// alternated batch by batch; and a fresh answer's encoding, written as bytes against JSON.stringify + copy.
// CPU time (process.cpuUsage) is what a busy shared machine disturbs least. Usage: bun bench/search-request-cpu.ts
import { copyFileSync } from "node:fs";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { openDatabase, migrate } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { planFleetSearch, runFleetSearch } from "../domain/usecases/search-fleet";
import { SearchAnswerJson } from "../adapters/http/core/search-answer-json";
import { BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { median } from "./report";
import { searchQueries, VARIANTS } from "./search";

const size = Number(process.env.BENCH_SIZES ?? 100_000);
const path = `${await fixtureDatabase(size)}.probe`;
copyFileSync(path.slice(0, -6), path);
const db = openDatabase(path);
migrate(db);
const services = createServices(db, { jwtSecret: "bench-jwt-secret-that-is-at-least-32-bytes", tokenTtlSeconds: 3600 });
await services.started;
await services.fleetIndex.rebuildNow();
await services.fleetIndex.typeTreesReady();
const app = buildApp(services, { logger: createLogger("info", { write: () => {} } as never), maxBodyBytes: 1 << 20, readiness: { ready: true } });
const login = await app.handle(new Request("http://localhost/api/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) }));
const auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
const queries = searchQueries(500, VARIANTS[0], 11).map((q) => new URLSearchParams(q).toString());
let fresh = 0;
const url = (repeat: boolean, i: number) => `http://localhost/api/search/fleet?${queries[i % queries.length]}${repeat ? "" : `&radius_km=${(50 + ++fresh * 1e-9).toFixed(9)}`}`;

/** CPU µs per request of `n` requests through `serve`. */
async function cpuPerRequest(n: number, repeat: boolean, serve: (r: Request) => Promise<Response>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await serve(new Request(url(repeat, i), { headers: auth }));
    if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

// As Bun's router does: the route table given to Bun.serve first.
const fast = (app.config.serve as { routes: Record<string, Record<string, (r: Request) => Promise<Response>>> }).routes["/api/search/fleet"].GET;
const lean = (r: Request) => fast(r);
const elysia = (r: Request) => Promise.resolve(app.handle(r));
for (const repeat of [true, false]) await cpuPerRequest(1000, repeat, lean).then(() => cpuPerRequest(1000, repeat, elysia));
const rounds = 7;
for (const repeat of [true, false]) {
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    a.push(await cpuPerRequest(2000, repeat, lean));
    b.push(await cpuPerRequest(2000, repeat, elysia));
  }
  console.log(`${repeat ? "repeated (answer cache hits)" : "fresh (every query new)"}: lean handler ${median(a).toFixed(1)} µs CPU/request [${a.map((x) => x.toFixed(1)).join(", ")}], Elysia route ${median(b).toFixed(1)} µs [${b.map((x) => x.toFixed(1)).join(", ")}]`);
}

// The encoding of a fresh answer alone: bytes from the columns against JSON.stringify of the result objects + copy.
const deps = services.searchFleet;
const caller = (await services.users.findCaller(BENCH_PLATFORM))!;
const plans = queries.map((q) => planFleetSearch(deps, { ...caller, plan: "ENTERPRISE" }, Object.fromEntries(new URLSearchParams(q))));
const bytes = new SearchAnswerJson(deps);
const timed = (f: () => void) => {
  const start = process.cpuUsage();
  for (let i = 0; i < 5; i++) f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (5 * plans.length);
};
const asBytes: number[] = [];
const asString: number[] = [];
for (let r = 0; r < rounds; r++) {
  asBytes.push(timed(() => plans.forEach((p) => bytes.encode(p))));
  asString.push(timed(() => plans.forEach((p) => Buffer.from(JSON.stringify({ success: true, data: runFleetSearch(deps, p) })))));
}
console.log(`fresh answer (search + page + encoding, in-process): written as bytes ${median(asBytes).toFixed(1)} µs [${asBytes.map((x) => x.toFixed(1)).join(", ")}], result objects + JSON.stringify + copy ${median(asString).toFixed(1)} µs [${asString.map((x) => x.toFixed(1)).join(", ")}]`);
services.fleetIndex.close();
process.exit(0);
