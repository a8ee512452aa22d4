// `npm run bench:statements` (docs/settlement.md#statements-and-settlement): a company with 100,000 settled bookings
// in a month across 200 counterparties (half as requester, half as provider), beside as many bookings of other
// companies and other months, on an SQLite file — or on PostgreSQL with TRIPSWITCH_TEST_DB=postgres (a throwaway
// cluster, as the suite's PostgreSQL run): `npm run bench:statements:postgres` — through the whole HTTP app in
// process: the month's list (GET /api/statements?period=…), one statement (?counterparty=…, about 500 lines) as JSON
// and as CSV (read to its end). Baseline in the same run: the list's sums read by a scan of every booking (SQLite
// `NOT INDEXED`; on PostgreSQL the same predicates written so that no index serves them), what the partial indexes
// avoid. Medians over the rounds. Bounded: 7 rounds, stopped past 120 s.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createHarness, type Harness } from "../test/support/harness";
import { ON_POSTGRES, preparePostgres, stopPostgres } from "../test/support/pg-databases";
import { BENCH_DIR, removeDatabase } from "./fixtures";
import { PRODUCTION_POSTGRES } from "./fair-delivery";
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

const DATABASE = ON_POSTGRES ? "PostgreSQL" : "SQLite";
const MONTH = 31 * 86_400;
const COLUMNS =
  "transaction_id, requester_id, requester_res_no, provider_id, status, reservation_type, userid, source_platform, target_platform, submit_date, " +
  "pickup_date, updated_at, total_amount, content_hash, version, trip_packet, change_logs, transaction_errors, settle_units, currency";

/** The company's month and the others' bookings, one prepared insert each in one transaction (SQLite). */
function seedSqlite(h: Harness, parties: string[], options: StatementsBenchOptions): void {
  const sqlite = h.db.$client;
  const company = sqlite.query(
    "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at, sandbox) VALUES (?, ?, ?, 'IO', 'FREE', ?, ?, 0, 0)",
  );
  const booking = sqlite.query(
    `INSERT INTO bookings (${COLUMNS}) VALUES (?, ?, ?, ?, ?, 'REGULAR', 'u', 'TripSwitch', 'TripSwitch', ?, ?, ?, ?, 'h', 1, ?, '[]', '[]', ?, 'USD')`,
  );
  sqlite.transaction(() => {
    parties.forEach((p, i) => company.run(p, p.toLowerCase(), p, `ops@${p.toLowerCase()}.example`, `+1212556${String(1000 + i)}`));
    for (let i = 0; i < options.bookings; i++) {
      const other = parties[i % parties.length];
      const [requester, provider] = i % 2 === 0 ? ["BIG-CO", other] : [other, "BIG-CO"];
      const status = i % 10 === 0 ? "CANCEL" : "CLOSE";
      const units = 5_000 + (i % 997) * 13;
      const pickup = MARCH + Math.floor((i * 7919) % MONTH);
      booking.run(`big-${i}`, requester, `R-${i}`, provider, status, pickup - 86_400, pickup, pickup, (units / 100).toFixed(2), PACKET, units);
    }
    // Other companies' bookings, and the company's own in other months: what a scan reads in vain.
    for (let i = 0; i < options.others; i++) {
      const [a, b] = [parties[i % parties.length], parties[(i + 1) % parties.length]];
      const pickup = MARCH + (i % 3 === 0 ? -40 : 5) * 86_400 + (i % 86_400);
      const [requester, provider] = i % 3 === 0 ? ["BIG-CO", a] : [a, b];
      booking.run(`other-${i}`, requester, `O-${i}`, provider, "CLOSE", pickup - 86_400, pickup, pickup, "80.00", PACKET, 8_000);
    }
  })();
  sqlite.exec("ANALYZE");
}

/** The same rows as seedSqlite, each set by one INSERT … SELECT over generate_series (PostgreSQL), then VACUUM (ANALYZE). */
async function seedPostgres(h: Harness, parties: string[], options: StatementsBenchOptions): Promise<void> {
  const party = (i: string) => `'PARTY-' || lpad((${i})::text, 3, '0')`;
  const n = parties.length;
  await h.rows(
    "INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at, sandbox) " +
      `SELECT p, lower(p), p, 'IO', 'FREE', 'ops@' || lower(p) || '.example', '+1212556' || (1000 + i), 0, false ` +
      `FROM (SELECT i, ${party("i")} AS p FROM generate_series(0, ${n - 1}) AS i) s`,
  );
  const insert = (select: string) => h.rows(`INSERT INTO bookings (${COLUMNS}) ${select}`, PACKET);
  await insert(
    "SELECT 'big-' || i, CASE WHEN i % 2 = 0 THEN 'BIG-CO' ELSE p END, 'R-' || i, CASE WHEN i % 2 = 0 THEN p ELSE 'BIG-CO' END, " +
      "CASE WHEN i % 10 = 0 THEN 'CANCEL' ELSE 'CLOSE' END, 'REGULAR', 'u', 'TripSwitch', 'TripSwitch', pk - 86400, pk, pk, " +
      "((5000 + (i % 997) * 13)::numeric / 100)::numeric(12, 2)::text, 'h', 1, ?, '[]', '[]', 5000 + (i % 997) * 13, 'USD' " +
      `FROM (SELECT i, ${party(`i % ${n}`)} AS p, ${MARCH} + (i::bigint * 7919) % ${MONTH} AS pk FROM generate_series(0, ${options.bookings - 1}) AS i) s`,
  );
  await insert(
    "SELECT 'other-' || i, CASE WHEN i % 3 = 0 THEN 'BIG-CO' ELSE a END, 'O-' || i, CASE WHEN i % 3 = 0 THEN a ELSE b END, 'CLOSE', " +
      "'REGULAR', 'u', 'TripSwitch', 'TripSwitch', pk - 86400, pk, pk, '80.00', 'h', 1, ?, '[]', '[]', 8000, 'USD' " +
      `FROM (SELECT i, ${party(`i % ${n}`)} AS a, ${party(`(i + 1) % ${n}`)} AS b, ` +
      `${MARCH} + (CASE WHEN i % 3 = 0 THEN -40 ELSE 5 END) * 86400 + i % 86400 AS pk FROM generate_series(0, ${options.others - 1}) AS i) s`,
  );
  await h.rows("VACUUM (ANALYZE) bookings");
  await h.rows("VACUUM (ANALYZE) companies");
}

/** The list's sums by a scan of every booking: SQLite's NOT INDEXED; on PostgreSQL the predicates no index can serve. */
function scanSql(): string {
  const table = ON_POSTGRES ? "bookings" : "bookings NOT INDEXED";
  const col = (c: string) => (ON_POSTGRES ? `(${c} || '')` : c);
  const at = ON_POSTGRES ? "(pickup_date + 0)" : "pickup_date";
  const sum = ON_POSTGRES ? "SUM(settle_units)::text" : "CAST(SUM(settle_units) AS TEXT)";
  const side = (who: string, other: string) =>
    `SELECT ${other}, currency, ${sum} FROM ${table} WHERE settle_units IS NOT NULL AND ${col(who)} = ? AND ${at} >= ? AND ${at} < ? ` +
    `GROUP BY ${other}, currency`;
  return `${side("requester_id", "provider_id")} UNION ALL ${side("provider_id", "requester_id")}`;
}

export async function benchStatements(options: StatementsBenchOptions = DEFAULT_STATEMENTS_OPTIONS): Promise<Figure[]> {
  const started = performance.now();
  mkdirSync(BENCH_DIR, { recursive: true });
  if (ON_POSTGRES) await preparePostgres();
  const path = join(BENCH_DIR, `statements-${process.pid}.sqlite`);
  removeDatabase(path);
  const h = createHarness({
    dbPath: ON_POSTGRES ? undefined : path,
    rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, registrationsPerHour: 0, writesPerMinute: 0 },
    postgres: PRODUCTION_POSTGRES,
  });
  const call = async (route: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
    const res = await h.request(init.body === undefined ? "GET" : "POST", route, init);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.text;
  };
  try {
    const form = { name: "Big Co", netid: "BIG-CO", mainEmail: "ops@big-co.example", password: PASSWORD, confirmPassword: PASSWORD, mainPhone: "+12125551000", coType: "IO" };
    await call("/api/company/register", { body: form });
    const token = JSON.parse(await call("/Platform.svc/getToken2", { body: { uid: "BIG-CO", pw: PASSWORD } })) as string;
    const parties = Array.from({ length: options.counterparties }, (_, i) => `PARTY-${String(i).padStart(3, "0")}`);
    const seeding = performance.now();
    if (ON_POSTGRES) await seedPostgres(h, parties, options);
    else seedSqlite(h, parties, options);
    console.log(`[statements] ${DATABASE}: seeded ${options.bookings + options.others} bookings in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    const auth = { token };
    const scan = scanSql();
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
      await h.rows(scan, "BIG-CO", MARCH, MARCH + MONTH, "BIG-CO", MARCH, MARCH + MONTH);
      times.scan.push(performance.now() - t0);
    }
    const size = `${DATABASE}, ${options.bookings.toLocaleString("en")} bookings, ${options.counterparties} counterparties`;
    const scanned = ON_POSTGRES ? "predicates no index serves" : "NOT INDEXED";
    const baseline = { name: `the list's sums by a scan of every booking (${scanned})`, runs: times.scan };
    const figures: Figure[] = [
      { part: "statements", name: `the month's list (${size})`, unit: "ms", measured: times.list, baseline, better: "lower", target: { value: 1000, text: "< 1 s" } },
      { part: "statements", name: `one statement, ${lines} lines (JSON, ${DATABASE})`, unit: "ms", measured: times.one, better: "lower", target: { value: 1000, text: "< 1 s" } },
      { part: "statements", name: `one statement, ${lines} lines (CSV, streamed, ${DATABASE})`, unit: "ms", measured: times.csv, better: "lower", target: { value: 1000, text: "< 1 s" } },
    ];
    for (const f of figures) printFigure(f);
    console.log(`${DATABASE} medians: list ${median(times.list).toFixed(1)} ms, statement ${median(times.one).toFixed(1)} ms, CSV ${median(times.csv).toFixed(1)} ms, scan ${median(times.scan).toFixed(1)} ms`);
    return figures;
  } finally {
    await h.close();
    removeDatabase(path);
    if (ON_POSTGRES) await stopPostgres();
  }
}

if (import.meta.main) await benchStatements();
