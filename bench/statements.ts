// `npm run bench:statements` (docs/settlement.md#statements-and-settlement): a company with 100,000 settled bookings
// in a month across 200 counterparties (half as requester, half as provider), beside as many bookings of other
// companies and other months, on an SQLite file, through the whole HTTP app in process (app.handle): the month's
// list (GET /api/statements?period=…), one statement (?counterparty=…, about 500 lines) as JSON and as CSV (read to
// its end). Baseline in the same run: the list's sums read by a scan of every booking (`NOT INDEXED`), what the
// partial indexes avoid. Medians over the rounds. Bounded: 7 rounds, stopped past 120 s.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { buildApp } from "../src/app";
import { createServices } from "../src/services";
import { BENCH_DIR, removeDatabase, closeBenchService } from "./fixtures";
import { median, printFigure, SMOKE, type Figure } from "./report";

export interface StatementsBenchOptions {
  /** The company's settled bookings in the month, its counterparties, and other companies' bookings beside them. */
  bookings: number;
  counterparties: number;
  others: number;
  rounds: number;
}

export const DEFAULT_STATEMENTS_OPTIONS: StatementsBenchOptions = SMOKE
  ? { bookings: 2_000, counterparties: 20, others: 2_000, rounds: 2 }
  : { bookings: 100_000, counterparties: 200, others: 100_000, rounds: 7 };

const LIMIT_MS = 120_000;
const PASSWORD = "correct horse battery staple";
const MARCH = Date.UTC(2026, 2, 1) / 1000;
/** A trip packet of a realistic size: a scan reads it with every row. */
const PACKET = JSON.stringify({ trip: { fees: [{ code: "OTHER", fee: "150.00", currency: "USD" }], notes: "x".repeat(1200) } });

export async function benchStatements(options: StatementsBenchOptions = DEFAULT_STATEMENTS_OPTIONS): Promise<Figure[]> {
  const started = performance.now();
  mkdirSync(BENCH_DIR, { recursive: true });
  const path = join(BENCH_DIR, `statements-${process.pid}.sqlite`);
  removeDatabase(path);
  const db = openDatabase(path);
  migrate(db);
  const services = createServices(db, {
    jwtSecret: "bench-secret-that-is-at-least-32-bytes!",
    tokenTtlSeconds: 3600,
    rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, registrationsPerHour: 0, writesPerMinute: 0 },
  });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: 1048576, readiness: { ready: true } });
  const call = async (route: string, init: RequestInit = {}) => {
    const res = await app.handle(new Request(`http://localhost${route}`, init));
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${text.slice(0, 300)}`);
    return text;
  };
  try {
    const form = { name: "Big Co", netid: "BIG-CO", mainEmail: "ops@big-co.example", password: PASSWORD, confirmPassword: PASSWORD, mainPhone: "+12125551000", coType: "IO" };
    await call("/api/company/register", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(form) });
    const token = JSON.parse(await call("/Platform.svc/getToken2", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ uid: "BIG-CO", pw: PASSWORD }) })) as string;
    const parties = Array.from({ length: options.counterparties }, (_, i) => `PARTY-${String(i).padStart(3, "0")}`);
    const company = db.$client.query(
      "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at, sandbox) VALUES (?, ?, ?, 'IO', 'FREE', ?, ?, 0, 0)",
    );
    const booking = db.$client.query(
      "INSERT INTO bookings (transaction_id, requester_id, requester_res_no, provider_id, status, reservation_type, userid, source_platform, " +
        "target_platform, submit_date, pickup_date, updated_at, total_amount, content_hash, version, trip_packet, change_logs, transaction_errors, " +
        "settle_units, currency) VALUES (?, ?, ?, ?, ?, 'REGULAR', 'u', 'TripSwitch', 'TripSwitch', ?, ?, ?, ?, 'h', 1, ?, '[]', '[]', ?, 'USD')",
    );
    const fill = db.$client.transaction(() => {
      parties.forEach((p, i) => company.run(p, p.toLowerCase(), p, `ops@${p.toLowerCase()}.example`, `+1212556${String(1000 + i)}`));
      const month = 31 * 86_400;
      for (let i = 0; i < options.bookings; i++) {
        const other = parties[i % parties.length];
        const [requester, provider] = i % 2 === 0 ? ["BIG-CO", other] : [other, "BIG-CO"];
        const status = i % 10 === 0 ? "CANCEL" : "CLOSE";
        const units = 5_000 + (i % 997) * 13;
        const pickup = MARCH + Math.floor((i * 7919) % month);
        booking.run(`big-${i}`, requester, `R-${i}`, provider, status, pickup - 86_400, pickup, pickup, (units / 100).toFixed(2), PACKET, units);
      }
      // Other companies' bookings, and the company's own in other months: what a scan reads in vain.
      for (let i = 0; i < options.others; i++) {
        const [a, b] = [parties[i % parties.length], parties[(i + 1) % parties.length]];
        const pickup = MARCH + (i % 3 === 0 ? -40 : 5) * 86_400 + (i % 86_400);
        const [requester, provider] = i % 3 === 0 ? ["BIG-CO", a] : [a, b];
        booking.run(`other-${i}`, requester, `O-${i}`, provider, "CLOSE", pickup - 86_400, pickup, pickup, "80.00", PACKET, 8_000);
      }
    });
    fill();
    db.$client.exec("ANALYZE");
    const auth = { token };
    const scan = db.$client.query(
      "SELECT provider_id, currency, CAST(SUM(settle_units) AS TEXT) FROM bookings NOT INDEXED WHERE settle_units IS NOT NULL AND requester_id = ? " +
        "AND pickup_date >= ? AND pickup_date < ? GROUP BY provider_id, currency UNION ALL SELECT requester_id, currency, CAST(SUM(settle_units) AS TEXT) " +
        "FROM bookings NOT INDEXED WHERE settle_units IS NOT NULL AND provider_id = ? AND pickup_date >= ? AND pickup_date < ? GROUP BY requester_id, currency",
    );
    const times = { list: [] as number[], one: [] as number[], csv: [] as number[], scan: [] as number[] };
    let lines = 0;
    for (let r = 0; r < options.rounds && performance.now() - started < LIMIT_MS; r++) {
      let t0 = performance.now();
      const list = JSON.parse(await call("/api/statements?period=2026-03", { headers: auth })).data as unknown[];
      times.list.push(performance.now() - t0);
      if (list.length !== options.counterparties) throw new Error(`the list named ${list.length} counterparties`);
      t0 = performance.now();
      const one = JSON.parse(await call(`/api/statements?period=2026-03&counterparty=${parties[7]}`, { headers: auth })).data;
      times.one.push(performance.now() - t0);
      lines = one.lines.length;
      t0 = performance.now();
      const csv = await call(`/api/statements?period=2026-03&counterparty=${parties[7]}&format=csv`, { headers: auth });
      times.csv.push(performance.now() - t0);
      if (csv.split("\r\n").length < lines) throw new Error("the CSV lacks lines");
      t0 = performance.now();
      scan.all("BIG-CO", MARCH, MARCH + 31 * 86_400, "BIG-CO", MARCH, MARCH + 31 * 86_400);
      times.scan.push(performance.now() - t0);
    }
    const size = `${options.bookings.toLocaleString("en")} bookings, ${options.counterparties} counterparties`;
    const baseline = { name: "the list's sums by a scan of every booking (NOT INDEXED)", runs: times.scan };
    const figures: Figure[] = [
      { part: "statements", name: `the month's list (${size})`, unit: "ms", measured: times.list, baseline, better: "lower", target: { value: 1000, text: "< 1 s" } },
      { part: "statements", name: `one statement, ${lines} lines (JSON)`, unit: "ms", measured: times.one, better: "lower", target: { value: 1000, text: "< 1 s" } },
      { part: "statements", name: `one statement, ${lines} lines (CSV, streamed)`, unit: "ms", measured: times.csv, better: "lower", target: { value: 1000, text: "< 1 s" } },
    ];
    for (const f of figures) printFigure(f);
    console.log(`medians: list ${median(times.list).toFixed(1)} ms, statement ${median(times.one).toFixed(1)} ms, CSV ${median(times.csv).toFixed(1)} ms, scan ${median(times.scan).toFixed(1)} ms`);
    return figures;
  } finally {
    await closeBenchService(services, db, path);
  }
}

if (import.meta.main) await benchStatements();
