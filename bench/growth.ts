// `bun bench/index.ts growth`: how much one company can grow the database (CONTRACT §21.6). For 60 s (GROWTH_SECONDS)
// a company writes as fast as its budgets allow — UPDATEs of one booking carrying ~900 KB each (every one a new live
// event) and network quotes just under 256 KiB — while another company makes normal bookings. Printed: the
// database's growth against the flooder's bounds (50 MB of live events + 2,000 quotes × 256 KiB an hour), and the
// same-run baseline (the neighbour's normal writes alone, before the flood).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { migrate, openDatabase, type Db } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createServices } from "../src/services";
import { STORE_BOUNDS } from "../domain/events/store-bounds";
import { BENCH_DIR } from "./fixtures";
import { fmt, printFigure, SMOKE, type Figure } from "./report";

const SECONDS = Number(process.env.GROWTH_SECONDS ?? (SMOKE ? 3 : 60));
const BASELINE_SECONDS = Math.max(2, Math.round(SECONDS / 6));
const PASSWORD = "correct horse battery staple";

/** Bytes the database's live pages take (after a checkpoint: the WAL folded in). */
function usedBytes(db: Db): number {
  const c = db.$client;
  c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pages = c
    .query<{ n: number }, []>("SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count) AS n")
    .get()!.n;
  const size = c.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
  return pages * size;
}

export async function benchGrowth(): Promise<Figure[]> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `growth-${process.pid}.sqlite`);
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  const db = openDatabase(path);
  migrate(db);
  // The served defaults: rate limits and store bounds as `npm start` has them.
  const defaults = loadConfig({ DB_PATH: path, JWT_SECRET: "bench-secret-that-is-at-least-32-bytes!!" });

  const jwtSecret = "bench-secret-that-is-at-least-32-bytes!!";
  const services = createServices(db, { jwtSecret, tokenTtlSeconds: 3600, rateLimits: defaults.rateLimits });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: defaults.maxBodyBytes, readiness: { ready: true } });
  const call = async (method: string, route: string, body: unknown, headers: Record<string, string> = {}) => {
    const init = { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
    const res = await app.handle(new Request(`http://localhost${route}`, init));
    const text = await res.text();
    return { status: res.status, text };
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
  const start = usedBytes(db);
  let baselineBookings = 0;
  for (const until = performance.now() + BASELINE_SECONDS * 1000; performance.now() < until; ) {
    if ((await normalBooking()).status === 200) baselineBookings++;
    await Bun.sleep(20);
  }
  const afterBaseline = usedBytes(db);
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
  let i = 0;
  const updateLoop = (async () => {
    while (performance.now() < deadline) {
      const bulk = String.fromCharCode(97 + (i++ % 26)).repeat(900_000);
      count("UPDATE", (await call("POST", "/Platform.svc/sendTrip/V1", trip(flooder.netid, "UPDATE", floodNo, { bulk }), { token: flooder.token })).status);
      // One process serves all three writers: each gives the event loop a turn (the booking commits run on timers).
      await Bun.sleep(0);
    }
  })();
  const quoteLoop = (async () => {
    const bulk = "q".repeat(STORE_BOUNDS.quoteMaxBytes - 4096);
    while (performance.now() < deadline) {
      const body = { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-12-03T18:45:00" } }, bulk };
      count("quote", (await call("POST", "/api/quotes", body, { authorization: `Bearer ${flooder.jwt}` })).status);
      await Bun.sleep(0);
    }
  })();
  await Promise.all([neighbourLoop, updateLoop, quoteLoop]);
  await Bun.sleep(200);
  const end = usedBytes(db);
  const flooderLive = db.$client
    .query<{ n: number }, [string]>("SELECT coalesce(sum(bytes), 0) AS n FROM live_event_bodies WHERE netid = ?")
    .get(flooder.netid.toLowerCase())!.n;
  const flooderQuotes = db.$client
    .query<{ n: number; q: number }, [string]>("SELECT coalesce(sum(length(body)), 0) AS n, count(*) AS q FROM network_quotes WHERE maker_netid = ?")
    .get(flooder.netid)!;
  const quoteBound = STORE_BOUNDS.quotesPerHour * STORE_BOUNDS.quoteMaxBytes;
  const bound = STORE_BOUNDS.liveEventBytes + quoteBound;
  const growth = end - afterBaseline;
  const neighbourGrowth = baselinePerSecond * SECONDS;
  console.log(
    `[growth] ${SECONDS} s flood: ${JSON.stringify(counts)}; neighbour ${neighbourOk} bookings (${neighbourRefused} refused) during it, ` +
      `${baselineBookings} in the ${BASELINE_SECONDS} s baseline`,
  );
  console.log(
    `[growth] database grew ${fmt(growth / 1e6)} MB (the neighbour's normal writes ≈ ${fmt(neighbourGrowth / 1e6)} MB of it); ` +
      `flooder's live events ${fmt(flooderLive / 1e6)} MB (bound ${fmt(STORE_BOUNDS.liveEventBytes / 1e6)} MB), ` +
      `stored quotes ${flooderQuotes.q} = ${fmt(flooderQuotes.n / 1e6)} MB (bound ${STORE_BOUNDS.quotesPerHour} × 256 KiB = ${fmt(quoteBound / 1e6)} MB); ` +
      `growth bound ${fmt(bound / 1e6)} MB + one booking`,
  );
  await services.worker.stop();
  db.$client.close();
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  const figures: Figure[] = [
    {
      part: "growth",
      name: `database growth while one company floods for ${SECONDS} s at its budgets (UPDATEs of ~900 KB, quotes of ~252 KiB)`,
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
        `flooder's live events ${fmt(flooderLive / 1e6)} MB of ${fmt(STORE_BOUNDS.liveEventBytes / 1e6)}; ` +
        `quotes ${flooderQuotes.q} of ${STORE_BOUNDS.quotesPerHour}; neighbour ${neighbourOk} bookings, ${neighbourRefused} refused`,
    },
  ];
  figures.forEach(printFigure);
  return figures;
}
