// The search index of one instance over PostgreSQL: the mirroring fleet source, its refresh, and the change feed
// that brings changes committed by another instance (another pool here, as another process would have) into search.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewFleetEntry } from "../../../domain/fleet/ports";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgFleetRepository } from "../../../adapters/postgres/fleet-repository";
import { PgFleetSource } from "../../../adapters/postgres/fleet-source";
import { watchFleetChangesPg } from "../../../adapters/postgres/fleet-watch";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";

let pg: TestDatabase;
/** Instance A (the searching one) and instance B (writing), each with its own pool. */
let a: PgDb;
let b: PgDb;
let writer: PgFleetRepository;
const NETID = "FEEDCO";

beforeAll(async () => {
  pg = await startDatabase();
  a = openPostgres(pg.url, { max: 4 });
  b = openPostgres(pg.url, { max: 4 });
  await migrate(a.$client);
  await new PgCompanyRepository(b).createWithFirstUser(
    { netid: NETID, name: "Feed Co", coType: "CO", plan: "FREE", mainEmail: "feed@example.com", mainPhone: "+4940000000", address: null, notes: null, createdAt: 1 },
    { uid: NETID, netid: NETID, email: "feed@example.com", passwordHash: "x", createdAt: 1 },
  );
  writer = new PgFleetRepository(b);
}, 120_000);

afterAll(async () => {
  await a?.$client.close();
  await b?.$client.close();
  await pg?.stop();
}, 60_000);

let serial = 0;
function entry(lat: number | null, lon: number | null, overrides: Partial<NewFleetEntry> = {}): NewFleetEntry {
  return {
    netid: NETID,
    slugBase: `feedco-car-${++serial}`,
    type: "SEDAN",
    name: `Car ${serial}`,
    description: "",
    imageUrl: null,
    maxPassengers: 3,
    maxLuggage: 2,
    lat,
    lon,
    airports: [],
    minimumRate: "50",
    hourlyRate: "60",
    currency: "USD",
    active: true,
    createdAt: 1_700_000_000,
    updatedAt: 1_700_000_000,
    ...overrides,
  };
}

/** The slugs the index finds within 1 km of (lat, lon). */
function near(index: KdFleetSearchIndex, lat: number, lon: number): string[] {
  return index.search({ centres: [{ lat, lon }], radiusKm: 1, types: undefined, words: [], offset: 0, limit: 100 }).hits.map((h) => h.entry.slug);
}

/** Polls `done` until it holds; the milliseconds it took, or a failure after `limitMs`. */
async function within(limitMs: number, done: () => boolean): Promise<number> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await Bun.sleep(5);
  }
  return performance.now() - start;
}

/** A searching instance: the mirroring source, its index and (unless told not to) the change feed. */
async function instance(pool: PgDb, feed = true, indexFile?: string) {
  const errors: unknown[] = [];
  const source = new PgFleetSource(pool, { onError: (e) => errors.push(e) });
  await source.start();
  const index = new KdFleetSearchIndex({ source, indexFile, onError: (e) => errors.push(e) });
  await index.rebuildNow();
  const watch = feed ? watchFleetChangesPg(pool, source, index, (e) => errors.push(e)) : undefined;
  return {
    source,
    index,
    errors,
    async close() {
      await watch?.stop();
      index.close();
    },
  };
}

describe("the fleet index over PostgreSQL", () => {
  test("start reads the active fleet: located entries are searchable, unlocated ones counted by airport, inactive ones left out", async () => {
    const [located, unlocated, inactive] = await writer.insertAll([entry(48.85, 2.35), entry(null, null, { airports: ["CDG", "ORY"] }), entry(48.85, 2.35, { active: false })]);
    const i = await instance(a, false);
    try {
      expect(near(i.index, 48.85, 2.35)).toEqual([located.slug]);
      expect(i.index.unlocated(["ORY"], { types: undefined, words: [] })).toEqual([{ netid: NETID, count: 1, airports: ["ORY"] }]);
      expect(i.source.activeRowsBySlug([located.slug, unlocated.slug, inactive.slug]).map((r) => r.slug)).toEqual([located.slug, unlocated.slug]);
      expect(i.source.stamp()?.n).toBeGreaterThan(0);
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("an entry added, moved and removed through another instance reaches search within a second each", async () => {
    const i = await instance(a);
    try {
      const [added] = await writer.insertAll([entry(40.7, -74.0)]);
      const addedMs = await within(3000, () => near(i.index, 40.7, -74.0).includes(added.slug));
      expect(await writer.update({ ...added, lat: 34.05, lon: -118.25, updatedAt: added.updatedAt + 1 })).toBe(true);
      const movedMs = await within(3000, () => near(i.index, 34.05, -118.25).includes(added.slug) && !near(i.index, 40.7, -74.0).includes(added.slug));
      expect(await writer.remove(NETID, added.slug)).toBe(true);
      const removedMs = await within(3000, () => !near(i.index, 34.05, -118.25).includes(added.slug));
      expect(addedMs).toBeLessThan(1000);
      expect(movedMs).toBeLessThan(1000);
      expect(removedMs).toBeLessThan(1000);
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("without a notification (a change made with the triggers off, then the stamp moved), the stamp poll still brings it in", async () => {
    const i = await instance(a);
    try {
      const slug = `feedco-silent-${++serial}`;
      // The subscription's first check has run by then: what follows can only be noticed by the poll.
      await Bun.sleep(500);
      await b.$client.begin(async (tx) => {
        await tx`SET LOCAL session_replication_role = replica`;
        await tx`INSERT INTO fleet_entries (slug, netid, type, name, max_passengers, lat, lon, created_at, updated_at) VALUES (${slug}, ${NETID}, 'SEDAN', 'Silent', 3, 60.1, 24.9, 1, 1)`;
        await tx`UPDATE fleet_generation SET n = n + 1, token = 'silent' WHERE id = 1`;
      });
      await within(5000, () => near(i.index, 60.1, 24.9).includes(slug));
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("this instance's own change is read fresh: told to the index, it is visible once whenFresh resolves", async () => {
    const i = await instance(a, false);
    try {
      const own = new PgFleetRepository(a);
      const [saved] = await own.insertAll([entry(35.68, 139.69)]);
      i.index.fleetChanged([saved.slug]);
      await i.index.whenFresh();
      expect(near(i.index, 35.68, 139.69)).toContain(saved.slug);
      await own.update({ ...saved, active: false });
      i.index.fleetChanged([saved.slug]);
      await i.index.whenFresh();
      expect(near(i.index, 35.68, 139.69)).not.toContain(saved.slug);
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("refresh reports the slugs changed since the mirror's stamp; with the log pruned under it, it reads everything again", async () => {
    const i = await instance(a, false);
    try {
      const before = i.source.stamp()!;
      const [x, y] = await writer.insertAll([entry(1, 1), entry(1, 1)]);
      await writer.remove(NETID, y.slug);
      expect([...((await i.source.refresh()) ?? [])].sort()).toEqual([x.slug, y.slug].sort());
      expect(await i.source.refresh()).toEqual([]);
      expect(i.source.changesSince(before, 10)?.sort()).toEqual([x.slug, y.slug].sort());
      expect(i.source.changesSince(i.source.stamp()!, 10)).toEqual([]);
      expect(i.source.changesSince({ n: before.n, token: "another" }, 10)).toBeUndefined();

      // The log loses the next change (pruned): the mirror cannot follow it entry by entry and reads it all.
      await writer.update({ ...x, lat: 2, lon: 2 });
      await b.$client`DELETE FROM fleet_changes`;
      expect(await i.source.refresh()).toBeUndefined();
      expect(i.source.activeRowsBySlug([x.slug])[0]).toMatchObject({ lat: 2, lon: 2 });
      expect(i.source.activeRowsBySlug([y.slug])).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("markSaved moves the change log's base forward only", async () => {
    const i = await instance(a, false);
    try {
      const old = i.source.stamp()!;
      await writer.insertAll([entry(3, 3)]);
      await i.source.refresh();
      const current = i.source.stamp()!;
      const base = async () => Number((await a.$client`SELECT log_base FROM fleet_generation WHERE id = 1`)[0].log_base);
      i.source.markSaved(current);
      // The update is sent in the background: polled, bounded.
      for (let k = 0; k < 100 && (await base()) !== current.n; k++) await Bun.sleep(10);
      expect(await base()).toBe(current.n);
      i.source.markSaved(old);
      await Bun.sleep(200);
      expect(await base()).toBe(current.n);
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 30_000);

  test("a saved index is loaded at restart, the entries changed since re-read: saving moved the change log's base to its stamp", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-fleet-index-"));
    const file = join(dir, "fleet.index");
    try {
      const first = await instance(a, false, file);
      const saved = first.source.stamp()!;
      await first.index.saveNow();
      await first.close();
      for (let k = 0; k < 100 && Number((await a.$client`SELECT log_base FROM fleet_generation WHERE id = 1`)[0].log_base) !== saved.n; k++) await Bun.sleep(10);
      expect(first.errors).toEqual([]);

      const [added] = await writer.insertAll([entry(10, 10)]);
      const second = await instance(a, false, file);
      try {
        expect(second.index.source).toBe("file");
        expect(second.index.changedSinceSaved).toBe(1);
        expect(near(second.index, 10, 10)).toEqual([added.slug]);
        expect(second.errors).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a mass change through another instance rebuilds the index; a restarted instance loads everything", async () => {
    const i = await instance(a);
    try {
      const many = Array.from({ length: 6000 }, (_, k) => entry(-33 - (k % 100) / 1000, 151 + Math.floor(k / 100) / 1000));
      await writer.insertAll(many);
      await within(20_000, () => i.index.size >= 6000 && near(i.index, -33.05, 151.03).length > 0);
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
    const expected = Number((await b.$client`SELECT count(*) AS c FROM fleet_entries WHERE active AND lat IS NOT NULL`)[0].c);
    const pool = openPostgres(pg.url, { max: 2 });
    const restarted = await instance(pool, false);
    try {
      expect(restarted.index.size).toBe(expected);
      expect(restarted.source.activeRowsBySlug([`feedco-car-${serial}`])).toHaveLength(1);
      expect(restarted.errors).toEqual([]);
    } finally {
      await restarted.close();
      await pool.$client.close();
    }
  }, 60_000);

  test("this instance's change committed while a rebuild reads the fleet is visible once whenFresh resolves", async () => {
    const i = await instance(a, false);
    try {
      const own = new PgFleetRepository(a);
      for (let round = 0; round < 3; round++) {
        const rebuilding = i.index.rebuildNow();
        const [saved] = await own.insertAll([entry(-20 - round, 30)]);
        i.index.fleetChanged([saved.slug]);
        await i.index.whenFresh();
        expect(near(i.index, -20 - round, 30)).toEqual([saved.slug]);
        await rebuilding;
      }
      expect(i.errors).toEqual([]);
    } finally {
      await i.close();
    }
  }, 60_000);
});
