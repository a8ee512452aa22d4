// `tripswitch import-sqlite`: an SQLite database built through the HTTP routes is copied into a throwaway PostgreSQL
// cluster by the CLI (a subprocess), then every table is compared row for row. PostgreSQL that cannot start fails
// the file; it never skips.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, FAST_DELIVERY, TEST_JWT_SECRET, type Harness } from "../support/harness";
import { startReceiver } from "../support/receiver";
import { party, providerUpdate, regularTrip, quoteTrip, sendTrip, soonTrip, type Party } from "../support/trips";
import { addVehicle } from "../support/fleet";
import { runCli, tempDir } from "../support/process";
import { startDatabase, type TestDatabase } from "../support/pg-databases";

let cluster: TestDatabase;
let admin: SQL;
let dir: string;
let dbPath: string;
let env: Record<string, string>;

/** Tables and columns only PostgreSQL has; they stay empty / null after an import. */
const POSTGRES_ONLY_COLUMNS = ["lease_owner", "lease_until"];

/** A new, empty database in the cluster (not migrated: the CLI migrates it). */
async function freshDatabase(name: string): Promise<string> {
  await admin.unsafe(`CREATE DATABASE ${name}`);
  return cluster.url.replace(/\/[^/]+$/, `/${name}`);
}

/** The file's bytes' digest and the names beside it: what "never modified" is checked by. */
function fileState() {
  return { digest: createHash("sha256").update(readFileSync(dbPath)).digest("hex"), files: readdirSync(dir).sort() };
}

/** Builds the SQLite file through the routes: every table gets rows. */
async function buildSqlite(): Promise<void> {
  const partner = startReceiver();
  const h: Harness = createHarness({ dbPath, delivery: FAST_DELIVERY });
  try {
    const [requester, provider, other] = await Promise.all([party(h, "IMP-BOOKWELL", "CO"), party(h, "IMP-ACME", "IO"), party(h, "IMP-OTHER", "IO")]);
    const bearer = (p: Party) => ({ authorization: `Bearer ${p.jwt}` });
    // Integrations with sealed secrets: a delivery password (the provider's endpoint fails: attempts and errors
    // are recorded) and a webhook secret (the requester's webhooks are delivered).
    expect((await h.request("PUT", "/api/company/integration", { headers: bearer(provider), body: { deliveryUrl: "http://127.0.0.1:9/farm-in", deliveryAuth: { username: "tripswitch", password: "s3cret-basic" }, luggage: "native" } })).status).toBe(200);
    expect((await h.request("PUT", "/api/company/integration", { headers: bearer(requester), body: { webhookUrl: `${partner.url}/hooks`, webhookFormat: "events" } })).status).toBe(200);
    expect((await h.request("POST", "/api/company/integration/webhook-secret", { headers: bearer(requester) })).status).toBe(200);
    // Partnerships: one active with a vehicle-type map, one pending.
    expect((await h.request("POST", "/api/partners", { headers: bearer(requester), body: { netid: provider.netid } })).status).toBe(200);
    expect((await h.request("POST", `/api/partners/${requester.netid}/accept`, { headers: bearer(provider) })).status).toBe(200);
    expect((await h.request("PUT", `/api/partners/${requester.netid}/vehicle-types`, { headers: bearer(provider), body: { SUV_LUX: "SUV", EXEC: "SEDAN" } })).status).toBe(200);
    expect((await h.request("POST", "/api/partners", { headers: bearer(other), body: { netid: requester.netid } })).status).toBe(200);
    // Fleet, with entries without a position and an inactive one; the saved index then a change logged after it.
    const sedans: string[] = [];
    for (let i = 0; i < 5; i++) sedans.push(await addVehicle(h, bearer(provider), { name: `Sedan ${i}`, lat: 40.64 + i / 100, lon: -73.78 }));
    // A rate card and a blackout on one sedan (a vehicle hold).
    const card = { currency: "USD", minimumFare: "45.00", hourly: [{ id: "sedan-hour", vehTypes: ["SEDAN"], perHour: "85.00", minimumHours: 3 }] };
    expect((await h.request("PUT", "/api/company/rates", { headers: bearer(provider), body: card })).status).toBe(200);
    const blackout = { from: "2027-03-20T08:00:00Z", to: "2027-03-20T18:00:00Z", reason: "Service" };
    expect((await h.request("POST", `/api/fleet/${sedans[0]}/blackouts`, { headers: bearer(provider), body: blackout })).status).toBe(201);
    await addVehicle(h, bearer(provider), { lat: null, lon: null, airports: ["JFK", "LGA"] });
    await addVehicle(h, bearer(other), { lat: null, lon: null, active: false, type: "BUS", maxLuggage: null });
    // An imported FX table (docs/fx.md#what-a-network-quote-shows).
    await h.services.fx.store.replace({ date: "2024-06-28", rates: { JPY: 171.94, USD: 1.0705 } }, 1_719_590_400);
    await h.services.fleetIndex.rebuildNow();
    await h.services.fleetIndex.saveNow();
    await addVehicle(h, bearer(other), { name: "After the save" });
    // A platform token released, a failed login.
    const spare = await h.platformToken(other.netid, "correct horse battery staple");
    expect((await h.request("POST", "/Platform.svc/releaseToken", { headers: { token: spare } })).status).toBe(200);
    // A core token signed out.
    const signedOut = await h.coreToken(other.netid, "correct horse battery staple");
    expect((await h.request("POST", "/api/token/release", { headers: { authorization: `Bearer ${signedOut}` } })).status).toBe(200);
    expect((await h.request("POST", "/api/token", { body: { uid: other.netid, pw: "wrong password entirely" } })).status).toBe(401);
    // Bookings with events (status changes), a quote, an Idempotency-Key, positions with a trail.
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      // The first picks up soon: its chauffeur is under way (docs/integration.md#trip-statuses-wait-for-the-trip).
      const body = i === 0 ? soonTrip(requester.netid, provider.netid) : regularTrip(requester.netid, provider.netid);
      const sent = await sendTrip(h, requester, body, i === 0 ? { "Idempotency-Key": crypto.randomUUID() } : {});
      expect(sent.status).toBe(200);
      ids.push(sent.body.transactionId);
    }
    expect((await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid))).status).toBe(200);
    // A network quote, priced from the provider's vehicles at JFK.
    const networkQuote = await h.request("POST", "/api/quotes", {
      headers: bearer(requester),
      body: { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-03-15T08:00:00" }, dropOff: { address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" } } },
    });
    expect(networkQuote.status).toBe(200);
    for (const s of ["CONFIRMED", "ASSIGNED", "EN_ROUTE"]) {
      const res = await providerUpdate(h, provider, ids[0], { status: s, ...(s === "CONFIRMED" ? { providerResNo: "P-IMPORT-1", chauffeur: { chauffeurId: "CH-12", firstName: "Sam", lastName: "Lee" } } : {}) });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      const res = await h.request("POST", "/api/GGPS.svc/saveGPScache", { headers: { token: provider.token }, body: { transactionId: ids[0], latitude: 40.6 + i / 1000, longitude: -73.7, chfName: "Sam Lee", driverId: "CH-12" } });
      expect([200, 429]).toContain(res.status);
      await Bun.sleep(1100);
    }
    // A booking the cascade moved on to another provider: the trigger keeps the earlier provider's offer.
    h.db.$client.query("UPDATE bookings SET provider_id = ? WHERE transaction_id = ?").run(other.netid, ids[3]);
    // A give-back's cost recovery and a disputed statement line (docs/settlement.md), as their own tables keep them.
    h.db.$client
      .query("INSERT INTO cost_recoveries (transaction_id, requester_id, provider_id, amount_minor, currency, percent, pickup_date, recorded_at, waived) VALUES (?, ?, ?, 7500, 'USD', 50, 1800000000, 1799990000, 0)")
      .run(ids[2], requester.netid, provider.netid);
    h.db.$client
      .query("INSERT INTO statement_disputes (id, transaction_id, requester_id, provider_id, period, raised_by, reason, raised_at, state) VALUES ('d-import', ?, ?, ?, '2027-01', ?, 'the toll was not taken', 1799990100, 'OPEN')")
      .run(ids[2], requester.netid, provider.netid, requester.netid);
    // More audit rows than one INSERT of the import takes (recorded by the service's own audit log).
    h.db.$client.transaction(() => {
      for (let i = 0; i < 4500; i++) h.services.audit.record({ type: "plan.changed", netid: other.netid, detail: `plan change ${i} ‘quoted’ — ünïcode` }, 1_790_000_000 + i);
    })();
    // Deliveries: webhooks delivered, deliveries to the dead endpoint failed and due again later.
    h.services.worker.start();
    const outcomes = () =>
      h.db.$client.query<{ delivered: number; retrying: number }, []>("SELECT sum(status = 'delivered') AS delivered, sum(status = 'pending' AND last_error IS NOT NULL) AS retrying FROM outbox_messages").get()!;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(outcomes().delivered > 0 && outcomes().retrying > 0)) await Bun.sleep(50);
    expect(outcomes().delivered).toBeGreaterThan(0);
    expect(outcomes().retrying).toBeGreaterThan(0);
  } finally {
    await h.close();
    partner.stop();
  }
}

/** Each table's rows, normalised (PostgreSQL booleans as 0/1, int8 strings as numbers), sorted. */
async function sqliteRows(table: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const columns = db.query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`).all().map((c) => c.name);
    const rows = db.query<Record<string, unknown>, []>(`SELECT * FROM "${table}"`).all().map((r) => columns.map((c) => r[c]));
    return { columns, rows: sorted(rows) };
  } finally {
    db.close();
  }
}

async function postgresRows(sql: SQL, table: string, columns: string[]): Promise<unknown[][]> {
  const types: Array<{ column_name: string; data_type: string }> = await sql.unsafe("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1", [table]);
  const typeOf = new Map(types.map((t) => [t.column_name, t.data_type]));
  const rows: Array<Record<string, unknown>> = await sql.unsafe(`SELECT * FROM "${table}"`);
  return sorted(
    rows.map((r) =>
      columns.map((c) => {
        const v = r[c];
        if (v === null) return null;
        if (typeOf.get(c) === "boolean") return v ? 1 : 0;
        if (typeOf.get(c) === "bigint") return Number(v);
        return v;
      }),
    ),
  );
}

function sorted(rows: unknown[][]): unknown[][] {
  return rows.map((r) => [JSON.stringify(r), r] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

function sqliteTables(): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    // The live event log is each database's own and not imported (a resumed event stream is reset).
    return db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('__migrations', 'live_events', 'live_event_bodies') ORDER BY name").all().map((r) => r.name);
  } finally {
    db.close();
  }
}

/** Every table's rows plus each identity sequence's state: a snapshot of the whole database. */
async function snapshot(sql: SQL): Promise<string> {
  const parts: unknown[] = [];
  for (const table of sqliteTables()) {
    const { columns } = await sqliteRows(table);
    parts.push(table, await postgresRows(sql, table, columns));
  }
  parts.push(await sql.unsafe("SELECT sequencename, last_value FROM pg_sequences ORDER BY sequencename"));
  return JSON.stringify(parts);
}

beforeAll(async () => {
  cluster = await startDatabase();
  admin = new SQL(cluster.url.replace(/\/[^/]+$/, "/postgres"), { max: 1 });
  dir = tempDir("tripswitch-import-sqlite-");
  dbPath = join(dir, "db.sqlite");
  env = { JWT_SECRET: TEST_JWT_SECRET, SECRETS_KEY: "0f".repeat(32), DB_PATH: join(dir, "unused.sqlite") };
  await buildSqlite();
  // Statements the repositories prepared keep the closed service's connection alive until they are collected, and
  // its last close checkpoints the WAL into the file at a moment of its own. The tests read a copy of the directory
  // (file and WAL together, nothing writing meanwhile) that no connection holds.
  const copy = tempDir("tripswitch-import-sqlite-copy-");
  cpSync(dir, copy, { recursive: true });
  dir = copy;
  dbPath = join(dir, "db.sqlite");
}, 120_000);

afterAll(async () => {
  await admin?.close();
  await cluster?.stop();
});

describe("import-sqlite", () => {
  let url: string;
  let pg: SQL;

  test("copies every table row for row, leaves the SQLite file as it was, and prints the counts", async () => {
    const tables = sqliteTables();
    expect(tables.length).toBeGreaterThanOrEqual(17);
    const empty: string[] = [];
    for (const t of tables) if ((await sqliteRows(t)).rows.length === 0) empty.push(t);
    expect(empty).toEqual([]);

    const before = fileState();
    url = await freshDatabase("imported");
    const run = await runCli(["import-sqlite", dbPath], { ...env, DATABASE_URL: url }, { timeoutMs: 60_000 });
    expect(run.stderr).not.toContain("import-sqlite:");
    expect(run.code).toBe(0);
    expect(fileState()).toEqual(before);

    pg = new SQL(url, { max: 2 });
    for (const table of tables) {
      const { columns, rows } = await sqliteRows(table);
      expect({ table, rows: await postgresRows(pg, table, columns) }).toEqual({ table, rows });
      expect(run.stdout).toMatch(new RegExp(`^${table} +${rows.length}$`, "m"));
    }
    const [leases] = await pg.unsafe(`SELECT count(*) AS n FROM outbox_messages WHERE ${POSTGRES_ONLY_COLUMNS.map((c) => `${c} IS NOT NULL`).join(" OR ")}`);
    expect(Number(leases.n)).toBe(0);
    // Converted types: booleans are booleans, positions and due times exact doubles.
    const [fleet] = await pg.unsafe("SELECT count(*) FILTER (WHERE active) AS active, count(*) FILTER (WHERE NOT active) AS inactive, count(*) FILTER (WHERE lat IS NULL) AS unplaced FROM fleet_entries");
    expect([Number(fleet.active), Number(fleet.inactive), Number(fleet.unplaced)]).toEqual([7, 1, 2]);
  }, 90_000);

  test("identity sequences continue past every imported id", async () => {
    const db = new Database(dbPath, { readonly: true });
    const used = (table: string) => {
      const max = db.query<{ m: number }, []>(`SELECT max(id) AS m FROM ${table}`).get()!.m ?? 0;
      const seq = db.query<{ seq: number }, [string]>("SELECT seq FROM sqlite_sequence WHERE name = ?").get(table)?.seq ?? 0;
      return Math.max(max, seq);
    };
    const highest = { login_failures: used("login_failures"), audit_events: used("audit_events"), outbox_messages: used("outbox_messages") };
    db.close();
    expect(Math.min(...Object.values(highest))).toBeGreaterThan(0);
    const [failure] = await pg.unsafe("INSERT INTO login_failures (key, at) VALUES ('k', 1) RETURNING id");
    const [audit] = await pg.unsafe("INSERT INTO audit_events (at, type) VALUES (1, 'test') RETURNING id");
    const [outbox] = await pg.unsafe(
      "INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, next_attempt_at, created_at) VALUES ('e-after-import', 'webhook', 't', 'x', 'n', 'u', '{}', 1, 1) RETURNING id",
    );
    expect(Number(failure.id)).toBe(highest.login_failures + 1);
    expect(Number(audit.id)).toBe(highest.audit_events + 1);
    expect(Number(outbox.id)).toBe(highest.outbox_messages + 1);
  });

  test("the stamps' triggers work again after the import (they are off while it copies)", async () => {
    const stamps = async () => {
      const [fleet] = await pg.unsafe("SELECT n, token FROM fleet_generation");
      const [account] = await pg.unsafe("SELECT n FROM account_generation");
      return { fleet: Number(fleet.n), token: fleet.token as string, account: Number(account.n) };
    };
    const before = await stamps();
    await pg.unsafe("UPDATE fleet_entries SET name = name || ' (renamed)' WHERE slug = (SELECT min(slug) FROM fleet_entries)");
    await pg.unsafe("UPDATE companies SET notes = 'imported' WHERE netid = (SELECT min(netid) FROM companies)");
    const after = await stamps();
    expect(after.fleet).toBe(before.fleet + 1);
    expect(after.token).not.toBe(before.token);
    expect(after.account).toBe(before.account + 1);
  });

  test("a second import into the now non-empty database is refused and changes nothing", async () => {
    const before = await snapshot(pg);
    const run = await runCli(["import-sqlite", dbPath], { ...env, DATABASE_URL: url }, { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("not empty");
    expect(run.stderr).toContain("companies: 3 rows");
    expect(await snapshot(pg)).toBe(before);
    await pg.close();
  }, 60_000);

  test("a file still open in a running service (WAL beside it) imports too, without being changed", async () => {
    const h = createHarness({ dbPath });
    try {
      const before = fileState();
      expect(before.files).toContain("db.sqlite-wal");
      const other = await freshDatabase("imported_live");
      const run = await runCli(["import-sqlite", dbPath], { ...env, DATABASE_URL: other }, { timeoutMs: 60_000 });
      expect(run.code).toBe(0);
      expect(fileState()).toEqual(before);
      const sql = new SQL(other, { max: 1 });
      const [row] = await sql.unsafe("SELECT count(*) AS n FROM bookings");
      await sql.close();
      expect(Number(row.n)).toBe((await sqliteRows("bookings")).rows.length);
    } finally {
      await h.close();
    }
  }, 60_000);

  test("a missing file, a missing DATABASE_URL, a file that is not a TripSwitch database: clear errors, nothing imported", async () => {
    const target = await freshDatabase("untouched");
    const missing = await runCli(["import-sqlite", join(dir, "no-such.sqlite")], { ...env, DATABASE_URL: target });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no such file: ${join(dir, "no-such.sqlite")}`);

    const noUrl = await runCli(["import-sqlite", dbPath], env);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("DATABASE_URL is not set");

    const garbage = join(dir, "garbage.sqlite");
    writeFileSync(garbage, "not a database at all, just text that is long enough to be read as a header".repeat(20));
    const notDb = await runCli(["import-sqlite", garbage], { ...env, DATABASE_URL: target });
    expect(notDb.code).toBe(1);
    expect(notDb.stderr).toContain(`cannot read ${garbage} as an SQLite database`);

    const foreign = join(dir, "foreign.sqlite");
    const f = new Database(foreign, { create: true });
    f.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)");
    f.close();
    const notOurs = await runCli(["import-sqlite", foreign], { ...env, DATABASE_URL: target });
    expect(notOurs.code).toBe(1);
    expect(notOurs.stderr).toContain("not a TripSwitch database");

    const usage = await runCli(["import-sqlite"], { ...env, DATABASE_URL: target });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: import-sqlite <file.sqlite>");

    const sql = new SQL(target, { max: 1 });
    const [row] = await sql.unsafe("SELECT count(*) AS n FROM companies");
    await sql.close();
    expect(Number(row.n)).toBe(0);
  }, 60_000);
});
