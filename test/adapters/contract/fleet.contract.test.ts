// The fleet repository's contract, run unchanged against both adapters: SQLite (in memory) and PostgreSQL (a
// throwaway cluster for the whole file). PostgreSQL that cannot start fails the file; it never skips. Then, on
// PostgreSQL only: two instances inserting up to a maximum at once, and the search index of one instance following
// changes committed by another (the mirroring source and its change feed).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FleetEntry } from "../../../domain/fleet/entry";
import { FleetFullError, type FleetRepository, type NewFleetEntry } from "../../../domain/fleet/ports";
import type { CompanyRepository } from "../../../domain/ports";
import { SqliteCompanyRepository } from "../../../adapters/sqlite/account-repositories";
import { SqliteFleetRepository } from "../../../adapters/sqlite/fleet-repository";
import { migrate as migratePostgres, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgFleetRepository } from "../../../adapters/postgres/fleet-repository";
import * as pgSchema from "../../../adapters/postgres/schema";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { describeOnBoth, onPostgres, onSqlite } from "./databases";
import { drizzle } from "drizzle-orm/bun-sql";

interface Fleet {
  fleet: FleetRepository;
  companies: CompanyRepository;
}

const sqliteAdapter = onSqlite<Fleet>((db) => ({ fleet: new SqliteFleetRepository(db), companies: new SqliteCompanyRepository(db) }));
const postgresAdapter = onPostgres<Fleet>((db) => ({ fleet: new PgFleetRepository(db), companies: new PgCompanyRepository(db) }));

let serial = 0;
/** A company no other test uses (the database is shared by the file's tests). */
async function company(companies: CompanyRepository): Promise<string> {
  const n = ++serial;
  const netid = `FLEETCO${n}`;
  const createdAt = 1_700_000_000 + n;
  await companies.createWithFirstUser(
    { netid, name: `Fleet ${n}`, coType: "CO", plan: "FREE", mainEmail: `fleet${n}@example.com`, mainPhone: `+4940${String(n).padStart(7, "0")}`, address: null, notes: null, createdAt },
    { uid: netid, netid, email: `fleet${n}@example.com`, passwordHash: `hash-${n}`, createdAt },
  );
  return netid;
}

/** A valid new entry of `netid` under slug base `slugBase`. */
function entry(netid: string, slugBase: string, overrides: Partial<NewFleetEntry> = {}): NewFleetEntry {
  return {
    netid,
    slugBase,
    externalId: null,
    type: "SEDAN",
    name: `Car ${slugBase}`,
    description: "",
    imageUrl: null,
    maxPassengers: 3,
    maxLuggage: 2,
    lat: 52.52,
    lon: 13.405,
    airports: [],
    minimumRate: "50",
    hourlyRate: "65.5",
    currency: "EUR",
    active: true,
    createdAt: 1_700_000_100,
    updatedAt: 1_700_000_100,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describeOnBoth("fleet repository", [sqliteAdapter, postgresAdapter], (f) => {

  test("insertAll saves every entry with every field, under base, base-2, …; find is by owner, slug in any case", async () => {
    const netid = await company(f.companies);
    const base = `${netid.toLowerCase()}-sedan`;
    const full = entry(netid, base, { description: "Black, leather", imageUrl: "https://img.example/1.jpg", maxLuggage: null, lat: null, lon: null, airports: ["JFK", "LGA"], active: false });
    const saved = await f.fleet.insertAll([full, entry(netid, base), entry(netid, base)]);
    expect(saved.map((e) => e.slug)).toEqual([base, `${base}-2`, `${base}-3`]);
    const { slugBase: _, ...fields } = full;
    expect(saved[0]).toEqual({ ...fields, slug: base });
    expect(await f.fleet.find(netid, ` ${base.toUpperCase()} `)).toEqual(saved[0]);
    expect(await f.fleet.find(netid, `${base}-3`)).toEqual(saved[2]);
    expect(await f.fleet.find(netid, `${base}-4`)).toBeUndefined();
    const other = await company(f.companies);
    expect(await f.fleet.find(other, base)).toBeUndefined();
    // A later insert continues the family.
    expect((await f.fleet.insertAll([entry(netid, base)])).map((e) => e.slug)).toEqual([`${base}-4`]);
    expect(await f.fleet.insertAll([])).toEqual([]);
  });

  test("a slug another family already took is skipped, within one insert and across inserts", async () => {
    const netid = await company(f.companies);
    const base = `${netid.toLowerCase()}-van`;
    // "…-van-2" is a base of its own here, and also the second candidate of "…-van".
    const first = await f.fleet.insertAll([entry(netid, base), entry(netid, `${base}-2`), entry(netid, base), entry(netid, `${base}-2`)]);
    expect(first.map((e) => e.slug)).toEqual([base, `${base}-2`, `${base}-3`, `${base}-2-2`]);
    const next = await f.fleet.insertAll([entry(netid, `${base}-3`), entry(netid, base), entry(netid, base)]);
    expect(next.map((e) => e.slug)).toEqual([`${base}-3-2`, `${base}-4`, `${base}-5`]);
  });

  test("listByNetid lists the company's entries by slug, a page at a time, with the company's total", async () => {
    const netid = await company(f.companies);
    const other = await company(f.companies);
    const low = netid.toLowerCase();
    await f.fleet.insertAll([entry(netid, `${low}-b`), entry(netid, `${low}-a`), entry(netid, `${low}-a-z`), entry(netid, `${low}-a`)]);
    await f.fleet.insertAll([entry(other, `${other.toLowerCase()}-a`)]);
    const all = await f.fleet.listByNetid(netid, { limit: 10, offset: 0 });
    expect(all.total).toBe(4);
    expect(all.items.map((e) => e.slug)).toEqual([`${low}-a`, `${low}-a-2`, `${low}-a-z`, `${low}-b`]);
    const page = await f.fleet.listByNetid(netid, { limit: 2, offset: 1 });
    expect(page).toEqual({ items: all.items.slice(1, 3), total: 4 });
    expect(await f.fleet.listByNetid("NOBODY", { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  });

  test("with maxEntries, an insert that would pass it throws FleetFullError with the current count and saves nothing", async () => {
    const netid = await company(f.companies);
    const base = `${netid.toLowerCase()}-suv`;
    await f.fleet.insertAll([entry(netid, base), entry(netid, base)], undefined, 3);
    const error = await rejection(f.fleet.insertAll([entry(netid, base), entry(netid, base)], undefined, 3));
    expect(error).toBeInstanceOf(FleetFullError);
    expect((error as FleetFullError).current).toBe(2);
    expect((await f.fleet.listByNetid(netid, { limit: 10, offset: 0 })).total).toBe(2);
    expect(await f.fleet.insertAll([entry(netid, base)], undefined, 3)).toHaveLength(1);
  });

  test("insertAll is all or nothing: one failing entry leaves none of the others behind", async () => {
    const netid = await company(f.companies);
    const base = `${netid.toLowerCase()}-bus`;
    // The last entry names a company that does not exist.
    await rejection(f.fleet.insertAll([entry(netid, base), entry(netid, base), entry("NO-SUCH-COMPANY", base)]));
    expect((await f.fleet.listByNetid(netid, { limit: 10, offset: 0 })).total).toBe(0);
    expect((await f.fleet.insertAll([entry(netid, base)]))[0].slug).toBe(base);
  });

  test("a 10,000-entry import is saved whole, in order, with distinct slugs, reporting progress up to the end", async () => {
    const netid = await company(f.companies);
    const low = netid.toLowerCase();
    const entries = Array.from({ length: 10_000 }, (_, i) => entry(netid, `${low}-car-${i % 50}`, { lat: 40 + (i % 100) / 100, lon: -74 + i / 10_000 }));
    const progress: number[] = [];
    const saved = await f.fleet.insertAll(entries, (done) => progress.push(done), 10_000);
    expect(saved).toHaveLength(10_000);
    expect(new Set(saved.map((e) => e.slug)).size).toBe(10_000);
    expect(saved[0].slug).toBe(`${low}-car-0`);
    expect(saved[50].slug).toBe(`${low}-car-0-2`);
    expect(saved[9_999].slug).toBe(`${low}-car-49-200`);
    expect(progress.at(-1)).toBe(10_000);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect((await f.fleet.listByNetid(netid, { limit: 1, offset: 0 })).total).toBe(10_000);
    expect(await f.fleet.find(netid, `${low}-car-7-100`)).toEqual(saved[7 + 99 * 50]);
  }, 60_000);

  test("update replaces the stored fields of the owner's entry (not slug, owner or creation time); false for another's or a missing one", async () => {
    const netid = await company(f.companies);
    const [saved] = await f.fleet.insertAll([entry(netid, `${netid.toLowerCase()}-limo`)]);
    const changed: FleetEntry = { ...saved, name: "Stretch", airports: ["BER"], lat: null, lon: null, maxLuggage: null, hourlyRate: "99.99", active: false, updatedAt: saved.updatedAt + 60 };
    expect(await f.fleet.update({ ...changed, createdAt: 1 })).toBe(true);
    expect(await f.fleet.find(netid, saved.slug)).toEqual(changed);
    const other = await company(f.companies);
    expect(await f.fleet.update({ ...changed, netid: other, name: "Hijacked" })).toBe(false);
    expect(await f.fleet.update({ ...changed, slug: `${saved.slug}-missing` })).toBe(false);
    expect((await f.fleet.find(netid, saved.slug))?.name).toBe("Stretch");
  });

  test("remove deletes the owner's entry (slug in any case); false for another's or a missing one", async () => {
    const netid = await company(f.companies);
    const other = await company(f.companies);
    const [a, b] = await f.fleet.insertAll([entry(netid, `${netid.toLowerCase()}-x`), entry(netid, `${netid.toLowerCase()}-x`)]);
    expect(await f.fleet.remove(other, a.slug)).toBe(false);
    expect(await f.fleet.remove(netid, ` ${a.slug.toUpperCase()}`)).toBe(true);
    expect(await f.fleet.remove(netid, a.slug)).toBe(false);
    expect(await f.fleet.find(netid, a.slug)).toBeUndefined();
    expect(await f.fleet.find(netid, b.slug)).toEqual(b);
    // The freed slug is the first free one again.
    expect((await f.fleet.insertAll([entry(netid, `${netid.toLowerCase()}-x`)]))[0].slug).toBe(a.slug);
  });
});

describe("fleet on PostgreSQL with several instances", () => {
  let pg: TestDatabase;
  let a: PgDb;
  let b: PgDb;
  beforeAll(async () => {
    pg = await startDatabase();
    a = openPostgres(pg.url, { max: 6 });
    b = openPostgres(pg.url, { max: 6 });
    await migratePostgres(a.$client);
  }, 120_000);
  afterAll(async () => {
    await a?.$client.close();
    await b?.$client.close();
    await pg?.stop();
  }, 60_000);

  test("two instances inserting up to a maximum at once never pass it, and never pick one slug twice", async () => {
    const netid = await company(new PgCompanyRepository(a));
    const repos = [new PgFleetRepository(a), new PgFleetRepository(b)];
    const base = `${netid.toLowerCase()}-race`;
    const attempts = Array.from({ length: 20 }, (_, i) => repos[i % 2].insertAll([entry(netid, base), entry(netid, base), entry(netid, base), entry(netid, base)], undefined, 50));
    const results = await Promise.allSettled(attempts);
    const saved = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
    const refused = results.filter((r) => r.status === "rejected");
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(FleetFullError);
    // 12 inserts of 4 fit under 50; every later one is refused.
    expect(saved).toHaveLength(48);
    expect(refused).toHaveLength(8);
    expect(new Set(saved.map((e) => e.slug)).size).toBe(48);
    expect((await repos[1].listByNetid(netid, { limit: 100, offset: 0 })).total).toBe(48);
  }, 60_000);

  test("a 10,000-entry import takes a few multi-row statements, not one per entry", async () => {
    const netid = await company(new PgCompanyRepository(a));
    const statements: string[] = [];
    const logged = drizzle({ client: a.$client, schema: pgSchema, logger: { logQuery: (query) => statements.push(query) } }) as PgDb;
    const low = netid.toLowerCase();
    const saved = await new PgFleetRepository(logged).insertAll(Array.from({ length: 10_000 }, (_, i) => entry(netid, `${low}-${i % 7}`)));
    expect(saved).toHaveLength(10_000);
    const inserts = statements.filter((q) => /^insert into "fleet_entries"/i.test(q));
    expect(inserts.length).toBeGreaterThan(1);
    expect(inserts.length).toBeLessThanOrEqual(10);
    expect(statements.length).toBeLessThan(100);
  }, 60_000);
});
