// Part 7: the service on PostgreSQL, one and two instances sharing one database, against the SQLite service in
// the same run. Trip intake (sendTrip NEW, every request a new booking) and HTTP search (GET /api/search/fleet,
// the benchmark mix of bench/http-search.ts) are measured as the SQLite parts measure them: wrk on loopback,
// 64 connections, alternated runs. Two instances: two wrk processes at once, half the connections each, one per
// instance; the rate is their sum, the p99 the worse of the two. The cluster keeps PostgreSQL's durability on
// (fsync, synchronous commit), as the SQLite service commits with synchronous=FULL; BENCH_PG_DURABLE=0 runs it
// with durability off instead (fsync, full-page writes and synchronous commit off: what the commits' disk flushes cost).
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import example from "../adapters/http/examples/sendtrip-new.json";
import { startCluster, type PgCluster } from "../scripts/pg-cluster";
import { BENCH_DIR, BENCH_OPERATORS, BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { coreToken, startService } from "./http-search";
import { freePort, ROOT, spawnChild, waitFor200, wrk, type Child, type LoadResult, type WrkOptions } from "./load";
import { tracked } from "./processes";
import { median, printFigure, SMOKE, type Figure } from "./report";
import { searchQueries, VARIANTS } from "./search";

export interface PostgresBenchOptions {
  /** Fleet entries of the fixture every database starts from. */
  size: number;
  runs: number;
  seconds: number;
  connections: number;
}

export const DEFAULT_POSTGRES_OPTIONS: PostgresBenchOptions = SMOKE ? { size: 2_000, runs: 1, seconds: 1, connections: 64 } : { size: 100_000, runs: 3, seconds: 5, connections: 64 };

/** Every instance shares these (tokens issued by one are valid on the other); rate limits off as in the SQLite parts. */
const SHARED_ENV = { SECRETS_KEY: "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7", LOG_LEVEL: "silent" };

/** Durability on unless BENCH_PG_DURABLE=0; the figures' names say which. */
const DURABLE = process.env.BENCH_PG_DURABLE !== "0";

type Target = { name: string; base: string };

/** Runs a `tripswitch` command of this checkout to its end (10 minutes at most); throws on a non-zero exit. */
async function command(args: string[], env: Record<string, string>): Promise<void> {
  const proc = tracked(
    Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...SHARED_ENV, ...env },
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    }),
  );
  const killer = setTimeout(() => proc.kill("SIGKILL"), 10 * 60_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(killer);
  if (code !== 0) throw new Error(`${args[0]} exited with ${code}: ${out} ${err}`);
}

/**
 * Copies the SQLite fixture into the (empty) PostgreSQL database with the service's own `import-sqlite`, after
 * migrating `file` (a copy of the fixture, which may predate this checkout's migrations) to this version.
 */
async function importFixture(file: string, url: string, dir: string): Promise<void> {
  await command(["migrate"], { DB_PATH: file });
  await command(["import-sqlite", file], { DATABASE_URL: url, DB_PATH: join(dir, "import.sqlite") });
}

/** Runs the load on one instance with all the connections, or on two at once with half each (sum of rates, worse p99). */
async function spread(targets: Target[], paths: string[], options: WrkOptions, perTarget?: (t: Target, i: number) => Partial<WrkOptions>): Promise<LoadResult> {
  const connections = Math.max(1, Math.round(options.connections / targets.length));
  const results = await Promise.all(targets.map((t, i) => wrk(t.base, paths, { ...options, connections, ...perTarget?.(t, i) })));
  return {
    rps: results.reduce((sum, r) => sum + r.rps, 0),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

function checked(what: string, results: LoadResult[]): LoadResult[] {
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  if (errors > 0) throw new Error(`${what} answered ${errors} errors under load`);
  return results;
}

/** The sendTrip NEW body for one target, split around its reservation number (made unique per request by wrk). */
async function sendTripLoad(t: Target): Promise<{ headers: Record<string, string>; before: string; after: string }> {
  const tokenRes = await fetch(`${t.base}/Platform.svc/getToken2`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) });
  if (tokenRes.status !== 200) throw new Error(`getToken2 on ${t.name}: ${tokenRes.status} ${await tokenRes.text()}`);
  const token = (await tokenRes.json()) as string;
  const body = structuredClone(example) as Record<string, any>;
  body.affiliateReservation = { ...body.affiliateReservation, requesterId: BENCH_PLATFORM, providerId: BENCH_OPERATORS[0], requesterResNo: "@RESNO@" };
  // The target's name in every reservation number: two wrk processes started in the same millisecond never collide.
  const [before, after] = JSON.stringify(body).split("@RESNO@").map((part, i) => (i === 0 ? `${part}${t.name}-` : part));
  const headers = { "content-type": "application/json", token };
  const check = await fetch(`${t.base}/Platform.svc/sendTrip/V1`, { method: "POST", headers, body: `${before}check-${Date.now()}${after}` });
  if (check.status !== 200) throw new Error(`sendTrip on ${t.name}: ${check.status} ${await check.text()}`);
  return { headers, before, after };
}

export async function benchPostgres(options: PostgresBenchOptions = DEFAULT_POSTGRES_OPTIONS): Promise<Figure[]> {
  const fixture = await fixtureDatabase(options.size);
  const work = join(BENCH_DIR, `postgres-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  // Every instance has its own directory (its saved fleet index lives beside its DB_PATH).
  const dirs = ["sqlite", "pg-1", "pg-2"].map((name) => join(work, name));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const sqlitePath = join(dirs[0], "tripswitch.sqlite");
  copyFileSync(fixture, sqlitePath);
  const children: Child[] = [];
  let cluster: PgCluster | undefined;
  const search = { sqlite: [] as LoadResult[], pg1: [] as LoadResult[], pg2: [] as LoadResult[], ceiling: [] as LoadResult[] };
  const intake = { sqlite: [] as LoadResult[], pg1: [] as LoadResult[], pg2: [] as LoadResult[] };
  let bytes = 0;
  try {
    cluster = await startCluster({ durable: DURABLE });
    const started = performance.now();
    await importFixture(sqlitePath, cluster.url, work);
    console.log(`fixture of ${options.size.toLocaleString("en-US")} entries imported into PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const sqlite = await startService(sqlitePath, SHARED_ENV);
    children.push(sqlite.child);
    const instances: Target[] = [];
    for (const [i, dir] of dirs.slice(1).entries()) {
      const pg = await startService(join(dir, "tripswitch.sqlite"), { ...SHARED_ENV, DATABASE_URL: cluster.url });
      children.push(pg.child);
      instances.push({ name: `pg${i + 1}`, base: pg.base });
    }
    const sqliteTarget: Target = { name: "sqlite", base: sqlite.base };

    // HTTP search: the benchmark mix of bench/http-search.ts.
    const paths = searchQueries(500, VARIANTS[0], 11).map((q) => `/api/search/fleet?${new URLSearchParams(q)}`);
    const tokens = new Map<string, string>();
    for (const t of [sqliteTarget, ...instances]) tokens.set(t.name, await coreToken(t.base));
    const sizes: number[] = [];
    for (const p of paths.slice(0, 50)) {
      const res = await fetch(sqlite.base + p, { headers: { authorization: `Bearer ${tokens.get("sqlite")}` } });
      if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`);
      sizes.push((await res.arrayBuffer()).byteLength);
    }
    bytes = Math.round(median(sizes));
    const ceilingPort = freePort();
    const ceiling = spawnChild([process.execPath, join(ROOT, "bench/ceiling-server.ts"), String(ceilingPort), String(bytes)], {});
    children.push(ceiling);
    await waitFor200(`http://127.0.0.1:${ceilingPort}/`, ceiling, 10_000, performance.now(), 20);
    const ceilingTarget: Target = { name: "ceiling", base: `http://127.0.0.1:${ceilingPort}` };
    const searchLoad = { seconds: options.seconds, connections: options.connections };
    const bearer = (t: Target) => ({ headers: { authorization: `Bearer ${tokens.get(t.name)}` } });
    if (!SMOKE) for (const targets of [[sqliteTarget], instances, [ceilingTarget]]) await spread(targets, paths, { ...searchLoad, seconds: 1 }, bearer);
    // Alternated, so background noise lands on all alike.
    for (let r = 0; r < options.runs; r++) {
      search.sqlite.push(await spread([sqliteTarget], paths, searchLoad, bearer));
      search.pg1.push(await spread(instances.slice(0, 1), paths, searchLoad, bearer));
      search.pg2.push(await spread(instances, paths, searchLoad, bearer));
      search.ceiling.push(await spread([ceilingTarget], ["/"], searchLoad));
    }
    checked("search", [...search.sqlite, ...search.pg1, ...search.pg2]);

    // Trip intake: every request a new booking, as bench/intake.ts sends them.
    const trips = new Map<string, Awaited<ReturnType<typeof sendTripLoad>>>();
    for (const t of [sqliteTarget, ...instances]) trips.set(t.name, await sendTripLoad(t));
    const intakeLoad = { seconds: options.seconds, connections: options.connections, method: "POST" };
    const sendTrip = (t: Target) => {
      const { headers, before, after } = trips.get(t.name)!;
      return { headers, uniqueBody: { before, after } };
    };
    const sendTripPath = ["/Platform.svc/sendTrip/V1"];
    if (!SMOKE) for (const targets of [[sqliteTarget], instances]) await spread(targets, sendTripPath, { ...intakeLoad, seconds: 1 }, sendTrip);
    for (let r = 0; r < options.runs; r++) {
      intake.sqlite.push(await spread([sqliteTarget], sendTripPath, intakeLoad, sendTrip));
      intake.pg1.push(await spread(instances.slice(0, 1), sendTripPath, intakeLoad, sendTrip));
      intake.pg2.push(await spread(instances, sendTripPath, intakeLoad, sendTrip));
    }
    checked("sendTrip", [...intake.sqlite, ...intake.pg1, ...intake.pg2]);
  } finally {
    for (const child of children.reverse()) await child.stop();
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return figures(options, bytes, search, intake);
}

function figures(options: PostgresBenchOptions, bytes: number, search: Record<"sqlite" | "pg1" | "pg2" | "ceiling", LoadResult[]>, intake: Record<"sqlite" | "pg1" | "pg2", LoadResult[]>): Figure[] {
  const c = options.connections;
  const half = Math.round(c / 2);
  const pg = DURABLE ? "PostgreSQL (durable: fsync + synchronous_commit on)" : "PostgreSQL (not durable: fsync + synchronous_commit off)";
  const two = `2 instances, ${half} + ${half} connections at once`;
  const label = options.size.toLocaleString("en-US");
  const rps = (xs: LoadResult[]) => xs.map((x) => x.rps);
  const p99 = (xs: LoadResult[]) => xs.map((x) => x.p99Ms);
  const intakeBase = "the SQLite service, 1 instance, same load (WAL + synchronous=FULL)";
  const searchBase = "the SQLite service, 1 instance, same load";
  const list: Figure[] = [
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, 1 instance, ${c} connections`, unit: "trips/s", measured: rps(intake.pg1), baseline: { name: intakeBase, runs: rps(intake.sqlite) }, better: "higher", target: { ratio: 0.5, text: "≥ 0.5× SQLite" } },
    { part: "postgres", name: `sendTrip NEW p99, ${pg}, 1 instance`, unit: "ms", measured: p99(intake.pg1), baseline: { name: "the SQLite service", runs: p99(intake.sqlite) }, better: "lower", target: { value: 100, text: "≤ 100 ms" } },
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, ${two} (rates summed)`, unit: "trips/s", measured: rps(intake.pg2), baseline: { name: intakeBase, runs: rps(intake.sqlite) }, better: "higher" },
    { part: "postgres", name: `sendTrip NEW p99, ${pg}, 2 instances (the worse of the two)`, unit: "ms", measured: p99(intake.pg2), baseline: { name: "the SQLite service", runs: p99(intake.sqlite) }, better: "lower" },
    { part: "postgres", name: `GET /api/search/fleet at ${label}, ${pg}, 1 instance, ${c} connections (benchmark mix: 500 searches repeated)`, unit: "requests/s", measured: rps(search.pg1), baseline: { name: searchBase, runs: rps(search.sqlite) }, better: "higher", target: { ratio: 0.9, text: "≥ 0.9× SQLite" } },
    { part: "postgres", name: `GET /api/search/fleet p99 at ${label}, ${pg}, 1 instance`, unit: "ms", measured: p99(search.pg1), baseline: { name: "the SQLite service", runs: p99(search.sqlite) }, better: "lower" },
    { part: "postgres", name: `GET /api/search/fleet at ${label}, ${pg}, ${two} (rates summed)`, unit: "requests/s", measured: rps(search.pg2), baseline: { name: searchBase, runs: rps(search.sqlite) }, better: "higher" },
    { part: "postgres", name: `GET /api/search/fleet p99 at ${label}, ${pg}, 2 instances (the worse of the two)`, unit: "ms", measured: p99(search.pg2), baseline: { name: "the SQLite service", runs: p99(search.sqlite) }, better: "lower" },
    {
      part: "postgres",
      name: `GET /api/search/fleet at ${label}, ${pg}, ${two} (rates summed) against 1 instance; both instances, PostgreSQL and wrk share the same 2 cores`,
      unit: "requests/s",
      measured: rps(search.pg2),
      baseline: { name: "PostgreSQL, 1 instance, same load, same rounds", runs: rps(search.pg1) },
      better: "higher",
      target: { ratio: 1.3, text: "≥ 1.3× 1 instance" },
    },
    { part: "postgres", name: `bare Bun.serve answering a prebuilt ${bytes}-byte body, ${c} connections (the runtime's ceiling for this answer, for comparison)`, unit: "requests/s", measured: rps(search.ceiling), baseline: { name: searchBase, runs: rps(search.sqlite) }, better: "higher" },
  ];
  list.forEach(printFigure);
  return list;
}

if (import.meta.main) await benchPostgres();
