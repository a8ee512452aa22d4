// Part 7: the service on PostgreSQL, one instance and two behind one port (REUSE_PORT=1) sharing one database, against
// the SQLite service in the same run. Trip intake (sendTrip NEW, every request a new booking) with 1,000 and with
// 200,000 bookings already stored, and HTTP search (GET /api/search/fleet, the benchmark mix of bench/http-search.ts),
// measured as the SQLite parts measure them: wrk on loopback, 64 connections, alternated runs. Two instances: both
// listen on one port (REUSE_PORT=1) and one wrk spreads its connections over them (the kernel picks). What each
// booking costs the database is read from pg_stat_statements over the runs (calls, execution time and shared
// blocks per statement): robust to a busy machine where rates and p99s are not. The cluster keeps PostgreSQL's
// durability on (fsync, synchronous commit), as the SQLite service commits with synchronous=FULL;
// BENCH_PG_DURABLE=0 runs it with durability off instead (fsync, full-page writes and synchronous commit off).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import example from "../adapters/http/examples/sendtrip-new.json";
import { startCluster, type PgCluster } from "../scripts/pg-cluster";
import { BENCH_DIR, BENCH_OPERATORS, BENCH_PASSWORD, BENCH_PLATFORM, fixtureDatabase } from "./fixtures";
import { coreToken, startService } from "./http-search";
import { freePort, ROOT, spawnChild, waitFor200, wrk, type Child, type LoadResult, type WrkOptions } from "./load";
import { tracked } from "./processes";
import { fmt, median, printFigure, SMOKE, type Figure } from "./report";
import { searchQueries, VARIANTS } from "./search";

export interface PostgresBenchOptions {
  /** Fleet entries of the fixture every database starts from. */
  size: number;
  /** Bookings stored before the intake runs: the small store and the large one, measured in the same rounds. */
  stored: [number, number];
  runs: number;
  seconds: number;
  connections: number;
}

export const DEFAULT_POSTGRES_OPTIONS: PostgresBenchOptions = SMOKE
  ? { size: 2_000, stored: [100, 2_500], runs: 1, seconds: 1, connections: 64 }
  : { size: 100_000, stored: [1_000, 200_000], runs: 3, seconds: 5, connections: 64 };

/**
 * What a high-volume deployment lifts, for every service of the run (SQLite too): the per-company request budgets
 * (startService turns off search and sendTrip's) and the bound on one company's stored live events (50 MB over 25 h:
 * one company's load passes it within seconds, and every later change would be 429 LIVE_EVENTS_QUOTA).
 */
const LIFTED = { LIVE_EVENTS_MAX_BYTES: "1000000000000" };

/** Every instance shares these (tokens issued by one are valid on the others). */
const SHARED_ENV = { SECRETS_KEY: "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7", LOG_LEVEL: "silent", ...LIFTED };

/** Durability on unless BENCH_PG_DURABLE=0; the figures' names say which. */
const DURABLE = process.env.BENCH_PG_DURABLE !== "0";

/**
 * The cluster's settings beyond the throwaway defaults: statements' costs recorded (pg_stat_statements), and
 * PostgreSQL's default shared buffers (128 MB; the throwaway cluster's 32 MB would put a 200,000-booking store's
 * indexes out of the cache, which no deployment of that size runs with).
 */
const CLUSTER_SETTINGS = ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.max=10000", "shared_buffers=128MB"];

/** The database of the large store (a copy of the small one's, made once the fixture is imported). */
const LARGE_DB = "tripswitch_stored";

type Target = { name: string; base: string; pids: number[] };

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

/**
 * Two `serve` processes on one database listening on one port (REUSE_PORT=1): each is waited for until it says it
 * listens (its /readyz cannot be asked alone: the kernel may hand the request to the other).
 */
async function startPair(dirs: string[], env: Record<string, string>): Promise<{ children: Child[]; base: string }> {
  const port = freePort();
  const children: Child[] = [];
  for (const dir of dirs) {
    const child = spawnChild([process.execPath, join(ROOT, "src/main.ts"), "serve"], {
      PORT: String(port),
      HOST: "127.0.0.1",
      DB_PATH: join(dir, "tripswitch.sqlite"),
      DEMO_DATA: "0",
      JWT_SECRET: "bench-jwt-secret-that-is-at-least-32-bytes",
      RATE_LIMIT_SEARCH_PER_MIN: "0",
      RATE_LIMIT_SENDTRIP_PER_MIN: "0",
      REUSE_PORT: "1",
      ...env,
    });
    children.push(child);
    const deadline = performance.now() + 120_000;
    while (!child.output().includes("TripSwitch listening")) {
      if (child.proc.exitCode !== null) throw new Error(`instance of the pair exited with ${child.proc.exitCode}: ${child.output()}`);
      if (performance.now() > deadline) throw new Error(`instance of the pair not listening within 120 s: ${child.output()}`);
      await Bun.sleep(50);
    }
  }
  const base = `http://127.0.0.1:${port}`;
  await waitFor200(`${base}/readyz`, children[0], 10_000, performance.now(), 20);
  return { children, base };
}

function checked(what: string, results: LoadResult[]): LoadResult[] {
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  if (errors > 0) throw new Error(`${what} answered ${errors} errors under load`);
  return results;
}

/** The sendTrip NEW body for one target, split around its reservation number (made unique per request by wrk). */
async function sendTripLoad(t: Target): Promise<{ headers: Record<string, string>; before: string; after: string; checkResNo: string }> {
  const tokenRes = await fetch(`${t.base}/Platform.svc/getToken2`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: BENCH_PLATFORM, pw: BENCH_PASSWORD }) });
  if (tokenRes.status !== 200) throw new Error(`getToken2 on ${t.name}: ${tokenRes.status} ${await tokenRes.text()}`);
  const token = (await tokenRes.json()) as string;
  const body = structuredClone(example) as Record<string, any>;
  body.affiliateReservation = { ...body.affiliateReservation, requesterId: BENCH_PLATFORM, providerId: BENCH_OPERATORS[0], requesterResNo: "@RESNO@" };
  // The target's name in every reservation number: two wrk processes started in the same millisecond never collide.
  const [before, after] = JSON.stringify(body).split("@RESNO@").map((part, i) => (i === 0 ? `${part}${t.name}-` : part));
  const headers = { "content-type": "application/json", token };
  const checkResNo = `check-${Date.now()}`;
  const check = await fetch(`${t.base}/Platform.svc/sendTrip/V1`, { method: "POST", headers, body: `${before}${checkResNo}${after}` });
  if (check.status !== 200) throw new Error(`sendTrip on ${t.name}: ${check.status} ${await check.text()}`);
  return { headers, before, after, checkResNo: `${t.name}-${checkResNo}` };
}

/**
 * Keeps the booking `resNo` (one the service made through sendTrip, with its live events) as the template the stores
 * are seeded from: plain tables the service never reads.
 */
async function keepTemplate(db: SQL, resNo: string): Promise<void> {
  await db.unsafe(
    `DROP TABLE IF EXISTS bench_bookings, bench_live_events, bench_bodies;
     CREATE TABLE bench_bookings AS SELECT * FROM bookings WHERE requester_res_no = '${resNo}';
     CREATE TABLE bench_live_events AS SELECT e.* FROM live_events e JOIN bench_bookings b USING (transaction_id);
     CREATE TABLE bench_bodies AS SELECT * FROM live_event_bodies WHERE id IN (SELECT body_id FROM bench_live_events);`,
  ).simple();
  const [{ n }] = await db.unsafe("SELECT count(*)::int AS n FROM bench_bookings");
  if (n !== 1) throw new Error(`the template booking ${resNo} was not found`);
}

/**
 * Empties the booking stores and fills them with `n` bookings as a deployment that has been running keeps them:
 * copies of the template with their own ids and numbers, submitted over the last 24 h, most ended (CLOSE, CANCEL,
 * REJECT), some confirmed or assigned (nothing left for the offer watch), each with its live events (numbered, their
 * bodies counted in live_event_usage) and a delivered outbox message; then VACUUM (ANALYZE), as autovacuum would have,
 * and a CHECKPOINT.
 */
async function seedStore(db: SQL, n: number): Promise<void> {
  // live_event_usage came with migration 0024: a checkout before it (measured with this bench) has none.
  const [{ usage }] = await db.unsafe("SELECT to_regclass('live_event_usage') IS NOT NULL AS usage");
  await db
    .unsafe(
      `TRUNCATE bookings, outbox_messages, delivery_attempts, live_events, live_event_bodies, vehicle_holds${usage ? ", live_event_usage" : ""};
       CREATE TEMP TABLE seed AS
         SELECT i, gen_random_uuid()::text AS tid, extract(epoch FROM now())::bigint - 60 - (i::bigint * 86000 / ${n}) AS at FROM generate_series(1, ${n}) i;
       INSERT INTO bookings (transaction_id, requester_id, requester_res_no, provider_id, provider_res_no, status, reservation_type, userid,
                             source_platform, target_platform, submit_date, pickup_date, updated_at, total_amount, quote_valid_until,
                             content_hash, version, trip_packet, change_logs, transaction_errors, offer_due)
         SELECT s.tid, b.requester_id, 'seed-' || s.i, b.provider_id, CASE WHEN s.i % 10 < 8 THEN 'P-' || s.i END,
                (ARRAY['CLOSE','CLOSE','CLOSE','CLOSE','CLOSE','CLOSE','CANCEL','CONFIRMED','ASSIGNED','REJECT'])[1 + s.i % 10],
                b.reservation_type, b.userid, b.source_platform, b.target_platform, s.at, s.at + 86400, s.at + 3600, b.total_amount, NULL,
                md5(s.tid), 3, b.trip_packet, b.change_logs, b.transaction_errors, NULL
           FROM seed s CROSS JOIN bench_bookings b;
       INSERT INTO live_event_bodies (id, netid, bytes, body, created_at)
         SELECT s.tid || ':' || t.id, t.netid, t.bytes, t.body, s.at FROM seed s CROSS JOIN bench_bodies t;
       ${usage ? "INSERT INTO live_event_usage (netid, bucket, writer, bytes) SELECT netid, created_at / 900, 0, sum(bytes) FROM live_event_bodies GROUP BY 1, 2;" : ""}
       INSERT INTO live_events (seq, netid, transaction_id, kind, role, type, body, body_id, created_at)
         SELECT nextval('live_event_numbers'), e.netid, s.tid, e.kind, e.role, e.type, '', s.tid || ':' || e.body_id, s.at
           FROM seed s CROSS JOIN bench_live_events e ORDER BY s.at DESC, s.i, e.id;
       INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at, delivered_at)
         SELECT gen_random_uuid()::text, 'delivery', 'TRIP_SENT', s.tid, b.provider_id, 'https://provider.example/in', b.trip_packet, 'delivered', 1, s.at, s.at, s.at + 1
           FROM seed s CROSS JOIN bench_bookings b;
       DROP TABLE seed;`,
    )
    .simple();
  // Outside the seeding's transaction (VACUUM cannot run in one): autovacuum would otherwise do it during the runs.
  await db.unsafe("VACUUM (ANALYZE) bookings, outbox_messages, live_events, live_event_bodies").simple();
  // The seeding's own checkpoint, now: its WAL (hundreds of MB for the large store) would otherwise have PostgreSQL
  // write the seeded pages back during the measured runs, which a deployment that has been running does not carry.
  await db.unsafe("CHECKPOINT").simple();
}

/** CPU time (user + system, ms) of the processes `pids` and, with `children`, of their children (PostgreSQL's backends). */
function cpuMs(pids: number[], children = false): number {
  const wanted = new Set(pids);
  let ticks = 0;
  const entries = children ? readdirSync("/proc").filter((e) => /^\d+$/.test(e)) : pids.map(String);
  for (const entry of entries) {
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
      if (wanted.has(Number(entry)) || (children && wanted.has(Number(fields[1])))) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone meanwhile, or no /proc (not Linux): counted as nothing.
    }
  }
  return ticks * 10;
}

interface Statement {
  query: string;
  calls: number;
  ms: number;
  blocks: number;
}

/** Every statement pg_stat_statements holds for database `name` (but the bench's own count), by query id. */
async function statements(db: SQL, name: string): Promise<Map<string, Statement>> {
  const rows: Array<{ id: string; query: string; calls: string; ms: number; blocks: string }> = await db.unsafe(
    `SELECT queryid::text AS id, query, calls, total_exec_time AS ms, shared_blks_hit + shared_blks_read AS blocks
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND query NOT LIKE '%/* bench */%'`,
    [name],
  );
  return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls), ms: Number(r.ms), blocks: Number(r.blocks) }]));
}

/** What one target's intake runs cost: per run, and per statement over all its runs. */
interface Cost {
  bookings: number[];
  /** Database execution time a booking (ms), per run: every statement of the database over the run ÷ bookings made. */
  dbMs: number[];
  /** Shared blocks a booking, per run. */
  blocks: number[];
  /** CPU a booking (µs), per run: the serving process(es), and PostgreSQL's processes. */
  serviceCpuUs: number[];
  pgCpuUs: number[];
  /** Bookings stored when each run began. */
  storedBefore: number[];
  byStatement: Map<string, Statement>;
}

const newCost = (): Cost => ({ bookings: [], dbMs: [], blocks: [], serviceCpuUs: [], pgCpuUs: [], storedBefore: [], byStatement: new Map() });

/** The bench's own count of the stored bookings: its text marks it, and `statements` leaves it out. */
const COUNT = "SELECT count(*)::int AS n FROM bookings /* bench */";

/** How long the requests still in flight when wrk stops may take to end (at most) before a run's cost is read. */
const SETTLE_MS = 5_000;

/**
 * Runs `load` and records what it cost database `name` (`db`, a connection to it; `stats`, to the database holding
 * pg_stat_statements) and the processes: the serving ones (`service`) and PostgreSQL's. The bookings made are
 * counted in the database once they stop growing (the requests wrk left in flight included).
 */
async function costed(cost: Cost, db: SQL, stats: SQL, name: string, cluster: PgCluster, service: number[], load: () => Promise<LoadResult>): Promise<LoadResult> {
  const count = async () => (await db.unsafe(COUNT))[0].n as number;
  const stored = await count();
  cost.storedBefore.push(stored);
  const before = await statements(stats, name);
  const [service0, pg0] = [cpuMs(service), cpuMs([cluster.pid], true)];
  const result = await load();
  // Until the bookings stop growing (the requests wrk left in flight have ended), bounded.
  for (let last = -1, now = await count(), waited = 0; now !== last && waited < SETTLE_MS; waited += 250) {
    await Bun.sleep(250);
    [last, now] = [now, await count()];
  }
  const [service1, pg1] = [cpuMs(service), cpuMs([cluster.pid], true)];
  const after = await statements(stats, name);
  const made = (await count()) - stored;
  if (made < result.requests - result.errors) throw new Error(`${name}: ${made} bookings stored for ${result.requests - result.errors} answered`);
  let ms = 0;
  let blocks = 0;
  for (const [id, s] of after) {
    const b = before.get(id);
    const d = { query: s.query, calls: s.calls - (b?.calls ?? 0), ms: s.ms - (b?.ms ?? 0), blocks: s.blocks - (b?.blocks ?? 0) };
    if (d.calls <= 0) continue;
    ms += d.ms;
    blocks += d.blocks;
    const sum = cost.byStatement.get(id) ?? { query: s.query, calls: 0, ms: 0, blocks: 0 };
    cost.byStatement.set(id, { query: s.query, calls: sum.calls + d.calls, ms: sum.ms + d.ms, blocks: sum.blocks + d.blocks });
  }
  cost.bookings.push(made);
  cost.dbMs.push(ms / made);
  cost.blocks.push(blocks / made);
  cost.serviceCpuUs.push(((service1 - service0) * 1000) / made);
  cost.pgCpuUs.push(((pg1 - pg0) * 1000) / made);
  return result;
}

/** Prints what a booking cost the database, statement by statement (the costliest first), over a target's runs. */
function printStatements(what: string, cost: Cost): void {
  const made = cost.bookings.reduce((a, b) => a + b, 0);
  const all = [...cost.byStatement.values()];
  const total = all.reduce((a, s) => a + s.ms, 0);
  console.log(
    `[postgres] statements a sendTrip NEW costs, ${what}: ${fmt(total / made)} ms of database time and ${fmt(all.reduce((a, s) => a + s.blocks, 0) / made)} shared blocks a booking ` +
      `(${made.toLocaleString("en-US")} bookings, ${cost.bookings.length} run(s); stored when the runs began: ${cost.storedBefore.map((n) => n.toLocaleString("en-US")).join(", ")}; ` +
      `CPU a booking: service ${fmt(median(cost.serviceCpuUs))} µs, PostgreSQL ${fmt(median(cost.pgCpuUs))} µs)`,
  );
  console.log("    calls a booking | mean ms | blocks a call | share of the time | statement");
  for (const s of all.sort((a, b) => b.ms - a.ms).slice(0, 8)) {
    const text = s.query.replace(/\s+/g, " ").slice(0, 110);
    console.log(`    ${fmt(s.calls / made).padStart(15)} | ${fmt(s.ms / s.calls).padStart(7)} | ${fmt(s.blocks / s.calls).padStart(13)} | ${`${((100 * s.ms) / total).toFixed(1)}%`.padStart(17)} | ${text}`);
  }
}

export async function benchPostgres(options: PostgresBenchOptions = DEFAULT_POSTGRES_OPTIONS): Promise<Figure[]> {
  const fixture = await fixtureDatabase(options.size);
  const work = join(BENCH_DIR, `postgres-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  // Every instance has its own directory (its saved fleet index lives beside its DB_PATH).
  const dirs = ["sqlite", "pg-1", "pg-2a", "pg-2b", "pg-stored"].map((name) => join(work, name));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  const sqlitePath = join(dirs[0], "tripswitch.sqlite");
  copyFileSync(fixture, sqlitePath);
  const children: Child[] = [];
  let cluster: PgCluster | undefined;
  /** pg_stat_statements, read from the maintenance database (so reading it costs the measured databases nothing). */
  let stats: SQL | undefined;
  let smallDb: SQL | undefined;
  let large: SQL | undefined;
  const search = { sqlite: [] as LoadResult[], pg1: [] as LoadResult[], pg2: [] as LoadResult[], ceiling: [] as LoadResult[] };
  const intake = { sqlite: [] as LoadResult[], pg1: [] as LoadResult[], stored: [] as LoadResult[], pg2: [] as LoadResult[] };
  const costs = { pg1: newCost(), stored: newCost(), pg2: newCost() };
  let bytes = 0;
  const [small, big] = options.stored;
  console.log(
    `bounds lifted for this load, as a high-volume deployment would: RATE_LIMIT_SEARCH_PER_MIN=0 and RATE_LIMIT_SENDTRIP_PER_MIN=0 (no ` +
      `per-company request budget), LIVE_EVENTS_MAX_BYTES=${LIFTED.LIVE_EVENTS_MAX_BYTES} (one company's stored live events not bounded to 50 MB a 25 h window)`,
  );
  try {
    cluster = await startCluster({ durable: DURABLE, settings: CLUSTER_SETTINGS });
    console.log(`PostgreSQL cluster: durability ${DURABLE ? "on" : "off"}, ${CLUSTER_SETTINGS.join(", ")}`);
    const started = performance.now();
    await importFixture(sqlitePath, cluster.url, work);
    const urlOf = (database: string) => cluster!.url.replace(/\/[^/]*$/, `/${database}`);
    stats = new SQL(urlOf("postgres"), { max: 1 });
    await stats.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    // The large store's database: a copy of the imported one (no connection is open on it).
    await stats.unsafe(`CREATE DATABASE ${LARGE_DB} TEMPLATE tripswitch`);
    const largeUrl = urlOf(LARGE_DB);
    smallDb = new SQL(cluster.url, { max: 1 });
    large = new SQL(largeUrl, { max: 1 });
    console.log(`fixture of ${options.size.toLocaleString("en-US")} entries imported into PostgreSQL (two databases) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const sqlite = await startService(sqlitePath, SHARED_ENV);
    children.push(sqlite.child);
    const pgEnv = { ...SHARED_ENV, DATABASE_URL: cluster.url };
    const pg1 = await startService(join(dirs[1], "tripswitch.sqlite"), pgEnv);
    children.push(pg1.child);
    const pair = await startPair(dirs.slice(2, 4), pgEnv);
    children.push(...pair.children);
    const stored = await startService(join(dirs[4], "tripswitch.sqlite"), { ...SHARED_ENV, DATABASE_URL: largeUrl });
    children.push(stored.child);
    const sqliteTarget: Target = { name: "sqlite", base: sqlite.base, pids: [sqlite.child.proc.pid] };
    const one: Target = { name: "pg1", base: pg1.base, pids: [pg1.child.proc.pid] };
    const two: Target = { name: "pg2", base: pair.base, pids: pair.children.map((c) => c.proc.pid) };
    const storedTarget: Target = { name: "stored", base: stored.base, pids: [stored.child.proc.pid] };

    // HTTP search: the benchmark mix of bench/http-search.ts.
    const paths = searchQueries(500, VARIANTS[0], 11).map((q) => `/api/search/fleet?${new URLSearchParams(q)}`);
    const tokens = new Map<string, string>();
    for (const t of [sqliteTarget, one, two]) tokens.set(t.name, await coreToken(t.base));
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
    const ceilingTarget: Target = { name: "ceiling", base: `http://127.0.0.1:${ceilingPort}`, pids: [] };
    const searchLoad = { seconds: options.seconds, connections: options.connections };
    const bearer = (t: Target): Partial<WrkOptions> => ({ headers: { authorization: `Bearer ${tokens.get(t.name)}` } });
    const load = (t: Target, p: string[], o: WrkOptions) => wrk(t.base, p, o);
    if (!SMOKE) for (const t of [sqliteTarget, one, two, ceilingTarget]) await load(t, paths, { ...searchLoad, seconds: 1, ...bearer(t) });
    // Alternated, so background noise lands on all alike.
    for (let r = 0; r < options.runs; r++) {
      search.sqlite.push(await load(sqliteTarget, paths, { ...searchLoad, ...bearer(sqliteTarget) }));
      search.pg1.push(await load(one, paths, { ...searchLoad, ...bearer(one) }));
      search.pg2.push(await load(two, paths, { ...searchLoad, ...bearer(two) }));
      search.ceiling.push(await load(ceilingTarget, ["/"], searchLoad));
    }
    checked("search", [...search.sqlite, ...search.pg1, ...search.pg2]);

    // Trip intake: every request a new booking, as bench/intake.ts sends them. The stores are seeded from a booking
    // each database's service made (the template): the large once, the small before each of its runs.
    const trips = new Map<string, Awaited<ReturnType<typeof sendTripLoad>>>();
    for (const t of [sqliteTarget, one, two, storedTarget]) trips.set(t.name, await sendTripLoad(t));
    await keepTemplate(smallDb, trips.get("pg1")!.checkResNo);
    await keepTemplate(large, trips.get("stored")!.checkResNo);
    const seeding = performance.now();
    await seedStore(large, big);
    console.log(`${big.toLocaleString("en-US")} bookings stored (with their live events and delivered messages) in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    await seedStore(smallDb, small);
    const intakeLoad = { seconds: options.seconds, connections: options.connections, method: "POST" };
    const sendTrip = (t: Target): Partial<WrkOptions> => {
      const { headers, before, after } = trips.get(t.name)!;
      return { headers, uniqueBody: { before, after } };
    };
    const sendTripPath = ["/Platform.svc/sendTrip/V1"];
    const post = (t: Target) => load(t, sendTripPath, { ...intakeLoad, ...sendTrip(t) });
    if (!SMOKE) for (const t of [sqliteTarget, one, two, storedTarget]) await load(t, sendTripPath, { ...intakeLoad, seconds: 1, ...sendTrip(t) });
    for (let r = 0; r < options.runs; r++) {
      intake.sqlite.push(await post(sqliteTarget));
      await seedStore(smallDb, small);
      intake.pg1.push(await costed(costs.pg1, smallDb, stats, "tripswitch", cluster, one.pids, () => post(one)));
      intake.stored.push(await costed(costs.stored, large, stats, LARGE_DB, cluster, storedTarget.pids, () => post(storedTarget)));
      await seedStore(smallDb, small);
      intake.pg2.push(await costed(costs.pg2, smallDb, stats, "tripswitch", cluster, two.pids, () => post(two)));
    }
    checked("sendTrip", [...intake.sqlite, ...intake.pg1, ...intake.stored, ...intake.pg2]);
    printStatements(`1 instance, ${small.toLocaleString("en-US")} bookings stored`, costs.pg1);
    printStatements(`1 instance, ${big.toLocaleString("en-US")} bookings stored`, costs.stored);
    printStatements(`2 instances behind one port, ${small.toLocaleString("en-US")} bookings stored`, costs.pg2);
  } finally {
    for (const db of [large, smallDb, stats]) await db?.close();
    for (const child of children.reverse()) await child.stop();
    await cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return figures(options, bytes, search, intake, costs);
}

function figures(
  options: PostgresBenchOptions,
  bytes: number,
  search: Record<"sqlite" | "pg1" | "pg2" | "ceiling", LoadResult[]>,
  intake: Record<"sqlite" | "pg1" | "stored" | "pg2", LoadResult[]>,
  costs: Record<"pg1" | "stored" | "pg2", Cost>,
): Figure[] {
  const c = options.connections;
  const pg = DURABLE ? "PostgreSQL (durable: fsync + synchronous_commit on)" : "PostgreSQL (not durable: fsync + synchronous_commit off)";
  const two = `2 instances behind one port (REUSE_PORT=1), ${c} connections`;
  const label = options.size.toLocaleString("en-US");
  const [small, big] = options.stored.map((n) => `${n.toLocaleString("en-US")} bookings stored`);
  const rps = (xs: LoadResult[]) => xs.map((x) => x.rps);
  const p99 = (xs: LoadResult[]) => xs.map((x) => x.p99Ms);
  const intakeBase = "the SQLite service, 1 instance, same load (WAL + synchronous=FULL)";
  const searchBase = "the SQLite service, 1 instance, same load";
  const pg1Base = `PostgreSQL, 1 instance, ${small}, same rounds`;
  const list: Figure[] = [
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, 1 instance, ${small}, ${c} connections`, unit: "trips/s", measured: rps(intake.pg1), baseline: { name: intakeBase, runs: rps(intake.sqlite) }, better: "higher", target: { ratio: 0.5, text: "≥ 0.5× SQLite" } },
    { part: "postgres", name: `sendTrip NEW p99, ${pg}, 1 instance, ${small}`, unit: "ms", measured: p99(intake.pg1), baseline: { name: "the SQLite service", runs: p99(intake.sqlite) }, better: "lower", target: { value: 100, text: "≤ 100 ms" } },
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, 1 instance, ${big}, ${c} connections`, unit: "trips/s", measured: rps(intake.stored), baseline: { name: intakeBase, runs: rps(intake.sqlite) }, better: "higher", target: { ratio: 0.5, text: "≥ 0.5× SQLite" } },
    { part: "postgres", name: `sendTrip NEW p99, ${pg}, 1 instance, ${big}`, unit: "ms", measured: p99(intake.stored), baseline: { name: "the SQLite service", runs: p99(intake.sqlite) }, better: "lower", target: { value: 100, text: "≤ 100 ms" } },
    {
      part: "postgres",
      name: `PostgreSQL execution time a sendTrip NEW (every statement of the database over the runs ÷ bookings), ${big} against ${small}`,
      unit: "ms",
      measured: costs.stored.dbMs,
      baseline: { name: `${small}, same rounds`, runs: costs.pg1.dbMs },
      better: "lower",
      target: { ratio: 1.2, text: "≤ 1.2× the small store" },
    },
    { part: "postgres", name: `PostgreSQL shared blocks a sendTrip NEW, ${big} against ${small}`, unit: "blocks", measured: costs.stored.blocks, baseline: { name: `${small}, same rounds`, runs: costs.pg1.blocks }, better: "lower" },
    { part: "postgres", name: `PostgreSQL CPU a sendTrip NEW (its processes), ${big} against ${small}`, unit: "µs", measured: costs.stored.pgCpuUs, baseline: { name: `${small}, same rounds`, runs: costs.pg1.pgCpuUs }, better: "lower" },
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, 1 instance, ${big} against ${small}`, unit: "trips/s", measured: rps(intake.stored), baseline: { name: pg1Base, runs: rps(intake.pg1) }, better: "higher" },
    { part: "postgres", name: `sendTrip NEW over HTTP, ${pg}, ${two}, ${small}`, unit: "trips/s", measured: rps(intake.pg2), baseline: { name: pg1Base, runs: rps(intake.pg1) }, better: "higher", target: { ratio: 1, text: "≥ 1 instance" } },
    { part: "postgres", name: `sendTrip NEW p99, ${pg}, ${two}, ${small}`, unit: "ms", measured: p99(intake.pg2), baseline: { name: "the SQLite service", runs: p99(intake.sqlite) }, better: "lower" },
    { part: "postgres", name: `GET /api/search/fleet at ${label}, ${pg}, 1 instance, ${c} connections (benchmark mix: 500 searches repeated)`, unit: "requests/s", measured: rps(search.pg1), baseline: { name: searchBase, runs: rps(search.sqlite) }, better: "higher", target: { ratio: 0.9, text: "≥ 0.9× SQLite" } },
    { part: "postgres", name: `GET /api/search/fleet p99 at ${label}, ${pg}, 1 instance`, unit: "ms", measured: p99(search.pg1), baseline: { name: "the SQLite service", runs: p99(search.sqlite) }, better: "lower" },
    {
      part: "postgres",
      name: `GET /api/search/fleet at ${label}, ${pg}, ${two}, against 1 instance; both instances, PostgreSQL and wrk share the same 2 cores`,
      unit: "requests/s",
      measured: rps(search.pg2),
      baseline: { name: "PostgreSQL, 1 instance, same load, same rounds", runs: rps(search.pg1) },
      better: "higher",
      target: { ratio: 1.3, text: "≥ 1.3× 1 instance" },
    },
    { part: "postgres", name: `GET /api/search/fleet p99 at ${label}, ${pg}, ${two}`, unit: "ms", measured: p99(search.pg2), baseline: { name: "the SQLite service", runs: p99(search.sqlite) }, better: "lower" },
    { part: "postgres", name: `bare Bun.serve answering a prebuilt ${bytes}-byte body, ${c} connections (the runtime's ceiling for this answer, for comparison)`, unit: "requests/s", measured: rps(search.ceiling), baseline: { name: searchBase, runs: rps(search.sqlite) }, better: "higher" },
  ];
  list.forEach(printFigure);
  return list;
}

if (import.meta.main) await benchPostgres();
