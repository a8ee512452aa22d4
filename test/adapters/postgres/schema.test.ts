import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { startCluster, type PgCluster } from "../../../scripts/pg-cluster";
import { migrate, openPostgres } from "../../../adapters/postgres/db";
import { migrations } from "../../../adapters/postgres/migrations";
import { migrations as sqliteMigrations } from "../../../adapters/sqlite/migrations";
import * as schema from "../../../adapters/postgres/schema";
import { bookings, companies, fleetEntries, fleetGeneration } from "../../../adapters/postgres/schema";
import { processAlive } from "./process";

// One cluster for the whole file: the tests run in order, and the last one stops it.
let cluster: PgCluster;
let sql: SQL;
beforeAll(async () => {
  cluster = await startCluster();
  sql = new SQL(cluster.url, { max: 2 });
}, 60_000);
afterAll(async () => {
  await sql?.close();
  await cluster?.stop();
}, 60_000);

const count = async (query: string, params: unknown[] = []) => Number((await sql.unsafe(query, params))[0].n);

/**
 * What only the PostgreSQL schema has, for running several instances: the delivery leases, the shared rate
 * budgets and the login attempts in progress (tables with their non-primary indexes).
 */
const PG_ONLY_TABLES: Record<string, string[]> = { login_attempts: ["login_attempts_key"], rate_buckets: [], live_streams: ["live_streams_netid"], live_event_usage: [] };
// Live events are numbered in commit order by a sequencer on PostgreSQL (SQLite commits one writer at a time).
const PG_ONLY_INDEXES = ["live_events_seq unique", "live_events_unsequenced"];
const PG_ONLY_COLUMNS = ["outbox_messages.lease_owner", "outbox_messages.lease_until", "live_events.seq"];

describe("PostgreSQL migrations", () => {
  test("ten instances migrating at once: every migration is applied exactly once, by one of them", async () => {
    const clients = Array.from({ length: 10 }, () => new SQL(cluster.url, { max: 1 }));
    try {
      const results = await Promise.all(clients.map((c) => migrate(c)));
      expect(results.flat().sort()).toEqual(migrations.map((m) => m.tag).sort());
      // Migrations are applied in order, so one instance (the first to take the lock) did them all.
      expect(results.filter((r) => r.length > 0)).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    expect(await count("SELECT count(*) AS n FROM __migrations")).toBe(migrations.length);
    expect(await count("SELECT count(*) AS n FROM account_generation")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM fleet_generation")).toBe(1);
  }, 30_000);

  test("migrating again applies nothing and changes nothing", async () => {
    const before = await sql`SELECT tag, applied_at FROM __migrations ORDER BY tag`;
    expect(await migrate(sql)).toEqual([]);
    expect(await sql`SELECT tag, applied_at FROM __migrations ORDER BY tag`).toEqual(before);
    expect(await count("SELECT count(*) AS n FROM account_generation")).toBe(1);
  });

  test("the migration lock is free again afterwards (no session keeps it)", async () => {
    expect(await count("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory'")).toBe(0);
  });
});

describe("PostgreSQL schema", () => {
  test("has every table, column and index of the SQLite schema, and only the PostgreSQL-only ones besides", async () => {
    const lite = new Database(":memory:");
    for (const m of sqliteMigrations) {
      for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) lite.exec(statement);
    }
    const liteTables = lite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((r) => r.name);
    const pgTables = (await sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '__migrations' ORDER BY table_name`).map((r: { name: string }) => r.name);
    expect(pgTables).toEqual([...liteTables, ...Object.keys(PG_ONLY_TABLES)].sort());
    for (const table of liteTables) {
      const liteColumns = lite.query<{ name: string; notnull: number }, []>(`PRAGMA table_info(${table})`).all().map((c) => `${c.name}${c.notnull ? " not null" : ""}`).sort();
      const pgColumns = (await sql`SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table}`)
        .map((c: { name: string; nullable: string }) => `${c.name}${c.nullable === "NO" ? " not null" : ""}`)
        .filter((c: string) => !PG_ONLY_COLUMNS.includes(`${table}.${c}`))
        .sort();
      expect({ table, columns: pgColumns }).toEqual({ table, columns: liteColumns });
    }
    const liteIndexes = lite
      .query<{ name: string; unique: number }, []>("SELECT name, sql LIKE 'CREATE UNIQUE%' AS \"unique\" FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
      .all()
      .map((r) => `${r.name}${r.unique ? " unique" : ""}`);
    const pgIndexes = (await sql`SELECT indexname AS name, indexdef LIKE 'CREATE UNIQUE%' AS "unique" FROM pg_indexes i WHERE schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p') ORDER BY indexname`).map(
      (r: { name: string; unique: boolean }) => `${r.name}${r.unique ? " unique" : ""}`,
    );
    expect(pgIndexes).toEqual([...liteIndexes, ...Object.values(PG_ONLY_TABLES).flat(), ...PG_ONLY_INDEXES].sort());
    // The PostgreSQL-only pieces exist as declared (the filters above cannot hide a missing one).
    for (const column of PG_ONLY_COLUMNS) {
      const [table, name] = column.split(".");
      expect((await sql`SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} AND column_name = ${name}`).length).toBe(1);
    }
    const unlogged = await sql`SELECT relname FROM pg_class WHERE relpersistence = 'u' AND relkind = 'r' ORDER BY relname`;
    expect(unlogged.map((r: { relname: string }) => r.relname)).toEqual(["rate_buckets"]);
    lite.close();
  });

  test("the drizzle schema and the migrations agree (a schema edit without a generated migration fails here)", async () => {
    const declared = (Object.values(schema) as unknown[])
      .filter((value): value is PgTable => is(value, PgTable))
      .map((table) => getTableConfig(table))
      .map((c) => `${c.name}: ${c.columns.map((col) => `${col.name} ${col.getSQLType()}${col.notNull ? " not null" : ""}`).sort().join(", ")}`)
      .sort();
    const rows = await sql`SELECT table_name AS t, column_name AS c, format_type(a.atttypid, a.atttypmod) AS type, is_nullable AS nullable
      FROM information_schema.columns ic JOIN pg_attribute a ON a.attrelid = ('public.' || quote_ident(ic.table_name))::regclass AND a.attname = ic.column_name
      WHERE table_schema = 'public' AND table_name <> '__migrations'`;
    const byTable = new Map<string, string[]>();
    for (const r of rows as Array<{ t: string; c: string; type: string; nullable: string }>) {
      byTable.set(r.t, [...(byTable.get(r.t) ?? []), `${r.c} ${r.type}${r.nullable === "NO" ? " not null" : ""}`]);
    }
    const migrated = [...byTable].map(([t, cols]) => `${t}: ${cols.sort().join(", ")}`).sort();
    expect(migrated).toEqual(declared);
  });

  test("bookings and its TOAST table are vacuumed early (docs/postgres.md#vacuum-settings-of-bookings)", async () => {
    const options = async (relation: string) =>
      ((await sql.unsafe("SELECT reloptions FROM pg_class WHERE oid = $1::regclass", [relation]))[0].reloptions ?? []) as string[];
    const [toast] = await sql`SELECT reltoastrelid::regclass::text AS name FROM pg_class WHERE oid = 'bookings'::regclass`;
    expect(await options("bookings")).toEqual(["autovacuum_vacuum_scale_factor=0.05"]);
    expect(await options(toast.name)).toEqual(["autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=8192"]);
  });

  test("the large texts a booking writes are compressed with lz4, not pglz (docs/postgres.md#settings-for-a-deployment)", async () => {
    const columns = await sql`SELECT c.relname || '.' || a.attname AS col, a.attcompression AS method
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE (c.relname, a.attname) IN (('live_event_bodies', 'body'), ('live_events', 'body'), ('bookings', 'trip_packet'),
                                       ('bookings', 'change_logs'), ('outbox_messages', 'body'))
      ORDER BY 1`;
    expect(columns.map((r: { col: string; method: string }) => `${r.col} ${r.method}`)).toEqual([
      "bookings.change_logs l",
      "bookings.trip_packet l",
      "live_event_bodies.body l",
      "live_events.body l",
      "outbox_messages.body l",
    ]);
    // A body long enough to be compressed is stored with lz4.
    const body = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ event: "booking.created", n: i })));
    await sql`INSERT INTO live_event_bodies (id, netid, bytes, body, created_at) VALUES ('lz4-check', 'x', ${body.length}, ${body}, 1)`;
    const [stored] = await sql`SELECT pg_column_compression(body) AS method FROM live_event_bodies WHERE id = 'lz4-check'`;
    await sql`DELETE FROM live_event_bodies WHERE id = 'lz4-check'`;
    expect(stored.method).toBe("lz4");
  });

  test("(requester_id, requester_res_no) is unique, and a company's fleet entries go with it", async () => {
    const db = openPostgres(cluster.url, { max: 2 });
    try {
      await db.insert(companies).values({ netid: "ACME", netidLower: "acme", name: "Acme", coType: "PROVIDER", mainEmail: "a@acme.example", mainPhone: "+15550000001", createdAt: 1_800_000_000_000 });
      const booking = (transactionId: string, requesterResNo: string) => ({
        transactionId,
        requesterId: "ACME",
        requesterResNo,
        providerId: "OTHER",
        status: "NEW",
        reservationType: "BOOKING",
        userid: "u",
        sourcePlatform: "API",
        targetPlatform: "API",
        submitDate: 1_800_000_000,
        pickupDate: 1_800_086_400,
        updatedAt: 1_800_000_000,
        contentHash: "h",
        version: 1,
        tripPacket: "{}",
        changeLogs: "[]",
        transactionErrors: "[]",
      });
      await db.insert(bookings).values(booking("TX1", "R1"));
      await db.insert(bookings).values(booking("TX2", "R2"));
      const duplicate = await db
        .insert(bookings)
        .values(booking("TX3", "R1"))
        .then(() => undefined, (e: unknown) => e);
      expect(String((duplicate as { cause?: unknown })?.cause ?? duplicate)).toContain("bookings_requester_res_no");
      const [row] = await db.select().from(bookings).where(eq(bookings.transactionId, "TX1"));
      expect(row.submitDate).toBe(1_800_000_000);
      expect(row.requesterResNo).toBe("R1");

      await db.insert(fleetEntries).values({ slug: "acme-sedan", netid: "ACME", type: "SEDAN", name: "Sedan", maxPassengers: 3, lat: 40.7, lon: -74, createdAt: 1, updatedAt: 1 });
      await db.delete(companies).where(eq(companies.netid, "ACME"));
      expect(await count("SELECT count(*) AS n FROM fleet_entries")).toBe(0);
    } finally {
      await db.$client.close();
    }
  });

  test("every change to an account table adds one to the account stamp, in the same transaction", async () => {
    const n = () => count("SELECT n FROM account_generation WHERE id = 1");
    const before = await n();
    await sql.begin(async (tx) => {
      await tx`INSERT INTO companies (netid, netid_lower, name, co_type, main_email, main_phone, created_at) VALUES ('STAMP', 'stamp', 'Stamp', 'PROVIDER', 's@x.example', '+15550000002', 0)`;
      await tx`INSERT INTO users (uid, uid_lower, netid, email, password_hash, created_at) VALUES ('stamp.u', 'stamp.u', 'STAMP', 'u@x.example', 'h', 0)`;
      await tx`INSERT INTO platform_tokens (token_hash, uid, created_at) VALUES ('t1', 'stamp.u', 0)`;
      await tx`INSERT INTO company_integrations (netid, updated_at) VALUES ('STAMP', 0)`;
    });
    expect(await n()).toBe(before + 4);
    await sql`UPDATE companies SET plan = 'GOLD' WHERE netid = 'STAMP'`;
    expect(await n()).toBe(before + 5);
    // Deleting the company cascades to its user, token and integration: one more for each row.
    await sql`DELETE FROM companies WHERE netid = 'STAMP'`;
    expect(await n()).toBe(before + 9);
    // A rolled-back change leaves the stamp where it was.
    await sql
      .begin(async (tx) => {
        await tx`INSERT INTO companies (netid, netid_lower, name, co_type, main_email, main_phone, created_at) VALUES ('GONE', 'gone', 'Gone', 'PROVIDER', 'g@x.example', '+15550000003', 0)`;
        throw new Error("roll back");
      })
      .catch(() => {});
    expect(await n()).toBe(before + 9);
    // Other tables do not move it.
    await sql`INSERT INTO audit_events (at, type) VALUES (0, 'login.ok')`;
    expect(await n()).toBe(before + 9);
  });

  test("fleet changes bump the stamp with a new token, log the slugs after a saved index, and notify listeners", async () => {
    const db = openPostgres(cluster.url, { max: 2 });
    const notified: string[] = [];
    const listener = new SQL(cluster.url, { max: 1 });
    const subscription = await listener.listen("tripswitch_fleet", (payload: string) => notified.push(payload));
    try {
      const stamp = async () => (await db.select().from(fleetGeneration))[0];
      await sql`INSERT INTO companies (netid, netid_lower, name, co_type, main_email, main_phone, created_at) VALUES ('FLEET', 'fleet', 'Fleet', 'PROVIDER', 'f@x.example', '+15550000004', 0)`;
      const start = await stamp();
      expect(start.logBase).toBe(-1);
      const entry = (slug: string) => ({ slug, netid: "FLEET", type: "SEDAN", name: slug, maxPassengers: 3, createdAt: 1, updatedAt: 1 });
      await db.insert(fleetEntries).values([entry("f-1"), entry("f-2")]);
      const afterInsert = await stamp();
      expect(afterInsert.n).toBe(start.n + 2);
      expect(afterInsert.token).not.toBe(start.token);
      expect(afterInsert.token).toMatch(/^[0-9a-f]{16}$/);
      // No saved index yet (log_base −1): nothing is logged.
      expect(await count("SELECT count(*) AS n FROM fleet_changes")).toBe(0);

      await db.update(fleetGeneration).set({ logBase: afterInsert.n, logBaseToken: afterInsert.token }).where(eq(fleetGeneration.id, 1));
      await db.update(fleetEntries).set({ slug: "f-1-renamed" }).where(eq(fleetEntries.slug, "f-1"));
      await db.delete(fleetEntries).where(eq(fleetEntries.slug, "f-2"));
      await db.insert(fleetEntries).values(entry("f-3"));
      const log = await sql`SELECT n, slug FROM fleet_changes ORDER BY n, slug`;
      const base = afterInsert.n;
      expect(log).toEqual([
        { n: String(base + 1), slug: "f-1" },
        { n: String(base + 1), slug: "f-1-renamed" },
        { n: String(base + 2), slug: "f-2" },
        { n: String(base + 3), slug: "f-3" },
      ]);
      expect((await stamp()).n).toBe(base + 3);

      // Beyond 50,000 changes after the saved index, the log stops (the next start rebuilds from the table).
      await db.update(fleetGeneration).set({ n: base + 50_000 }).where(eq(fleetGeneration.id, 1));
      await db.update(fleetEntries).set({ name: "Sedan" }).where(eq(fleetEntries.slug, "f-3"));
      expect(await count("SELECT count(*) AS n FROM fleet_changes")).toBe(4);

      // One notification per committed transaction: 5 transactions changed fleet entries above.
      for (let i = 0; i < 50 && notified.length < 5; i++) await Bun.sleep(20);
      expect(notified).toHaveLength(5);
      // A transaction changing many entries notifies once, at commit; a rolled-back one not at all.
      await sql.begin(async (tx) => {
        await tx`UPDATE fleet_entries SET name = 'x' WHERE netid = 'FLEET'`;
        await tx`UPDATE fleet_entries SET name = 'y' WHERE netid = 'FLEET'`;
      });
      await sql.begin(async (tx) => {
        await tx`UPDATE fleet_entries SET name = 'z' WHERE netid = 'FLEET'`;
        throw new Error("roll back");
      }).catch(() => {});
      await Bun.sleep(200);
      expect(notified).toHaveLength(6);
    } finally {
      await subscription.unlisten();
      await listener.close();
      await db.$client.close();
    }
  });
});

describe("the compiled binary", () => {
  test("runs the embedded migrations (no SQL files beside it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tripswitch-pg-binary-"));
    try {
      const binary = join(dir, "migrate");
      const build = Bun.spawnSync([process.execPath, "build", "--compile", join(import.meta.dir, "migrate-binary.ts"), "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
      expect(build.stderr.toString()).not.toContain("error");
      expect(build.exitCode).toBe(0);
      await sql`CREATE DATABASE binary_check`;
      const url = cluster.url.replace(/\/tripswitch$/, "/binary_check");
      const run = () => {
        const r = Bun.spawnSync([binary, url], { cwd: dir, stdout: "pipe", stderr: "pipe" });
        expect(r.stderr.toString()).toBe("");
        return JSON.parse(r.stdout.toString());
      };
      expect(run()).toEqual(migrations.map((m) => m.tag));
      expect(run()).toEqual([]);
      const check = new SQL(url, { max: 1 });
      // The stamp and the airport list (fleet_airports) triggers, each on insert, update and delete.
      expect(Number((await check`SELECT count(*) AS n FROM information_schema.triggers WHERE event_object_table = 'fleet_entries'`)[0].n)).toBe(6);
      await check.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the throwaway cluster", () => {
  test("stopping it ends the server and removes its directory", async () => {
    const { pid, dir } = cluster;
    expect(processAlive(pid)).toBe(true);
    expect(existsSync(dir)).toBe(true);
    await sql.close();
    await cluster.stop();
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    // A second stop (afterAll's) is harmless.
    await cluster.stop();
  }, 30_000);
});
