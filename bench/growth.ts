// `bun bench/index.ts growth`: how much one company can grow the database (docs/security.md#per-company-store-bounds). For 60 s (GROWTH_SECONDS)
// a company writes as fast as its budgets allow — UPDATEs of one booking carrying ~900 KB each (every one a new live
// event) and network quotes just under 256 KiB, of random text (nothing for the database to compress) — while another
// company makes normal bookings. Printed: the database's growth against the flooder's bounds (50 MB of live events, the
// booking versions its UPDATEs replaced counted with them, + 64 MiB of quotes kept), and the same-run baseline (the
// neighbour's normal writes alone, before the flood). On SQLite by default; on PostgreSQL with
// TRIPSWITCH_TEST_DB=postgres (a throwaway cluster, as the test suite's PostgreSQL run): `npm run bench:growth:postgres`.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { loadConfig } from "../src/config";
import { STORE_BOUNDS } from "../domain/events/store-bounds";
import { createHarness, type Harness } from "../test/support/harness";
import { ON_POSTGRES, preparePostgres, stopPostgres } from "../test/support/pg-databases";
import { BENCH_DIR } from "./fixtures";
import { PRODUCTION_POSTGRES } from "./fair-delivery";
import { fmt, printFigure, SMOKE, type Figure } from "./report";

const SECONDS = Number(process.env.GROWTH_SECONDS ?? (SMOKE ? 3 : 60));
const BASELINE_SECONDS = Math.max(2, Math.round(SECONDS / 6));
const PASSWORD = "correct horse battery staple";
const DATABASE = ON_POSTGRES ? "PostgreSQL" : "SQLite";

/** Random text of `length` characters: PostgreSQL compresses what it stores out of line, so repeated letters would flatter it. */
function incompressible(length: number): string {
  return randomBytes(Math.ceil((length * 3) / 4)).toString("base64").slice(0, length);
}

/**
 * Bytes the database takes: on SQLite its live pages (after a checkpoint: the WAL folded in); on PostgreSQL the
 * database's files (tables, TOAST and indexes; pg_database_size) after a checkpoint.
 */
async function usedBytes(h: Harness): Promise<number> {
  if (ON_POSTGRES) {
    await h.rows("CHECKPOINT");
    const [row] = await h.rows<{ n: number | string }>("SELECT pg_database_size(current_database()) AS n");
    return Number(row.n);
  }
  const c = h.db.$client;
  c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pages = c
    .query<{ n: number }, []>("SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count) AS n")
    .get()!.n;
  const size = c.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
  return pages * size;
}

export async function benchGrowth(): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  if (ON_POSTGRES) await preparePostgres();
  const path = join(BENCH_DIR, `growth-${process.pid}.sqlite`);
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  // The served defaults: rate limits and store bounds as `npm start` has them.
  const defaults = loadConfig({ DB_PATH: path, JWT_SECRET: "bench-secret-that-is-at-least-32-bytes!!" });
  const h = createHarness({
    dbPath: ON_POSTGRES ? undefined : path,
    rateLimits: defaults.rateLimits,
    maxBodyBytes: defaults.maxBodyBytes,
    postgres: PRODUCTION_POSTGRES,
  });
  const call = async (method: string, route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await h.request(method, route, { body, headers });
    return { status: res.status, text: res.text };
  };
  let phone = 1000;
  const company = async (netid: string, coType: "CO" | "IO") => {
    const mail = `${netid.toLowerCase()}@example.com`;
    const form = { name: `${netid} Ltd`, netid, mainEmail: mail, password: PASSWORD, confirmPassword: PASSWORD, mainPhone: `+1212555${++phone}`, coType };
    const reg = await call("POST", "/api/company/register", form);
    if (reg.status !== 200 && reg.status !== 201) throw new Error(`register ${netid}: ${reg.status} ${reg.text}`);
    const token = JSON.parse((await call("POST", "/Platform.svc/getToken2", { uid: netid, pw: PASSWORD })).text) as string;
    const jwt = (JSON.parse((await call("POST", "/api/token", { uid: netid, pw: PASSWORD })).text) as { token: string }).token;
    return { netid, token, jwt };
  };
  const [flooder, neighbour, provider] = [await company("GROW-FLOOD", "CO"), await company("GROW-NEIGHBOUR", "CO"), await company("GROW-LIMO", "IO")];
  let resNo = 0;
  const trip = (from: string, action: "NEW" | "UPDATE", no: string, extra: Record<string, unknown> = {}) => ({
    reservationType: "REGULAR",
    passengerCount: "2",
    locations: {
      pickup: { locationType: "airport", address: "JFK", lat: "40.6413", lon: "-73.7781", country: "US", time: "2027-12-03T18:45:00" },
      dropOff: { locationType: "address", address: "20 W 34th St, New York, NY 10001", lat: "40.7484", lon: "-73.9857", country: "US" },
    },
    passengers: [{ firstName: "Ada", lastName: "Lovelace", phoneNumber: "+12125550100" }],
    affiliateReservation: { requesterId: from, requesterResNo: no, providerId: provider.netid, action },
    ...extra,
  });
  const normalBooking = () => call("POST", "/Platform.svc/sendTrip/V1", trip(neighbour.netid, "NEW", `N-${++resNo}`), { token: neighbour.token });

  // Baseline: the neighbour's normal bookings alone.
  const start = await usedBytes(h);
  let baselineBookings = 0;
  for (const until = performance.now() + BASELINE_SECONDS * 1000; performance.now() < until; ) {
    if ((await normalBooking()).status === 200) baselineBookings++;
    await Bun.sleep(20);
  }
  const afterBaseline = await usedBytes(h);
  const baselinePerSecond = (afterBaseline - start) / BASELINE_SECONDS;

  // The flood, with the neighbour writing as before.
  const floodNo = "FLOOD-1";
  const created = await call("POST", "/Platform.svc/sendTrip/V1", trip(flooder.netid, "NEW", floodNo), { token: flooder.token });
  if (created.status !== 200) throw new Error(`flood booking: ${created.status} ${created.text}`);
  const counts: Record<string, number> = {};
  const count = (what: string, status: number) => (counts[`${what} ${status}`] = (counts[`${what} ${status}`] ?? 0) + 1);
  const deadline = performance.now() + SECONDS * 1000;
  let neighbourOk = 0;
  let neighbourRefused = 0;
  const neighbourLoop = (async () => {
    while (performance.now() < deadline) {
      const res = await normalBooking();
      if (res.status === 200) neighbourOk++;
      else neighbourRefused++;
      await Bun.sleep(20);
    }
  })();
  const updateLoop = (async () => {
    while (performance.now() < deadline) {
      const bulk = incompressible(900_000);
      count("UPDATE", (await call("POST", "/Platform.svc/sendTrip/V1", trip(flooder.netid, "UPDATE", floodNo, { bulk }), { token: flooder.token })).status);
      // One process serves all three writers: each gives the event loop a turn (the booking commits run on timers).
      await Bun.sleep(0);
    }
  })();
  const quoteLoop = (async () => {
    while (performance.now() < deadline) {
      const bulk = incompressible(STORE_BOUNDS.quoteMaxBytes - 4096);
      const body = { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-12-03T18:45:00" } }, bulk };
      count("quote", (await call("POST", "/api/quotes", body, { authorization: `Bearer ${flooder.jwt}` })).status);
      await Bun.sleep(0);
    }
  })();
  await Promise.all([neighbourLoop, updateLoop, quoteLoop]);
  await Bun.sleep(200);
  const end = await usedBytes(h);
  // What the flooder's changes were charged (its events' bodies and the booking versions they replaced), and the bodies.
  const liveSql = "SELECT coalesce(sum(bytes), 0) AS n, coalesce(sum(length(body)), 0) AS b FROM live_event_bodies WHERE netid = ?";
  const [live] = await h.rows<{ n: number | string; b: number | string }>(liveSql, flooder.netid.toLowerCase());
  const flooderLive = Number(live.n);
  const flooderBodies = Number(live.b);
  const [quotes] = await h.rows<{ n: number | string; q: number | string }>(
    "SELECT coalesce(sum(length(body)), 0) AS n, count(*) AS q FROM network_quotes WHERE maker_netid = ?",
    flooder.netid,
  );
  const flooderQuotes = { n: Number(quotes.n), q: Number(quotes.q) };
  if (ON_POSTGRES) {
    // Where PostgreSQL's growth is: the largest tables with their TOAST and indexes (dead row versions included).
    const largest = await h.rows<{ name: string; n: number | string }>(
      "SELECT relname AS name, pg_total_relation_size(relid) AS n FROM pg_statio_user_tables ORDER BY n DESC LIMIT 5",
    );
    console.log(`[growth] largest tables: ${largest.map((r) => `${r.name} ${fmt(Number(r.n) / 1e6)} MB`).join(", ")}`);
  }
  // What the flooder may keep of quotes: 2,000 an hour of at most 256 KiB, and 64 MiB in all (the tighter here).
  const quoteBound = Math.min(STORE_BOUNDS.quotesPerHour * STORE_BOUNDS.quoteMaxBytes, STORE_BOUNDS.quoteKeptBytes);
  const bound = STORE_BOUNDS.liveEventBytes + quoteBound;
  const growth = end - afterBaseline;
  const neighbourGrowth = baselinePerSecond * SECONDS;
  console.log(
    `[growth] ${DATABASE}, ${SECONDS} s flood: ${JSON.stringify(counts)}; neighbour ${neighbourOk} bookings (${neighbourRefused} refused) during it, ` +
      `${baselineBookings} in the ${BASELINE_SECONDS} s baseline`,
  );
  console.log(
    `[growth] database grew ${fmt(growth / 1e6)} MB (the neighbour's normal writes ≈ ${fmt(neighbourGrowth / 1e6)} MB of it); ` +
      `flooder's live events ${fmt(flooderLive / 1e6)} MB (bound ${fmt(STORE_BOUNDS.liveEventBytes / 1e6)} MB: bodies ${fmt(flooderBodies / 1e6)} MB, ` +
      `replaced booking versions ${fmt((flooderLive - flooderBodies) / 1e6)} MB), ` +
      `stored quotes ${flooderQuotes.q} = ${fmt(flooderQuotes.n / 1e6)} MB (bound ${fmt(quoteBound / 1e6)} MB kept: 64 MiB, under ` +
      `${STORE_BOUNDS.quotesPerHour} × 256 KiB an hour); ` +
      `growth bound ${fmt(bound / 1e6)} MB + one booking`,
  );
  await h.close();
  if (ON_POSTGRES) await stopPostgres();
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  const figures: Figure[] = [
    {
      part: "growth",
      name: `${DATABASE}: database growth while one company floods for ${SECONDS} s at its budgets (UPDATEs of ~900 KB, quotes of ~252 KiB)`,
      unit: "MB",
      measured: [growth / 1e6],
      baseline: {
        name: `the neighbour's normal bookings, ${BASELINE_SECONDS} s, scaled to ${SECONDS} s`,
        runs: [Math.max(neighbourGrowth, 1) / 1e6],
      },
      better: "lower",
      target: {
        value: (bound + 2_000_000 + neighbourGrowth * 2) / 1e6,
        text: `≤ the flooder's bounds (${fmt(bound / 1e6)} MB) + its booking + the neighbour's share`,
      },
      note:
        `flooder's live events ${fmt(flooderLive / 1e6)} MB of ${fmt(STORE_BOUNDS.liveEventBytes / 1e6)} ` +
        `(bodies ${fmt(flooderBodies / 1e6)}, replaced versions ${fmt((flooderLive - flooderBodies) / 1e6)}); ` +
        `quotes ${flooderQuotes.q}, ${fmt(flooderQuotes.n / 1e6)} MB of ${fmt(quoteBound / 1e6)} kept; neighbour ${neighbourOk} bookings, ${neighbourRefused} refused`,
    },
  ];
  figures.forEach(printFigure);
  return figures;
}
