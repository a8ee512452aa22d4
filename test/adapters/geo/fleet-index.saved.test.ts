import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { openDatabase } from "../../../adapters/sqlite/db";
import { activeIndexRows, fleetChangesSince, FLEET_CHANGE_LOG_LIMIT, markFleetIndexSaved, readFleetStamp } from "../../../adapters/sqlite/fleet-source";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import { INDEX_CODE, loadIndexFile, saveIndexFile } from "../../../adapters/geo/saved/index-file";
import { rowsSource, sqliteSource } from "./sources";
import { tempDir } from "../../support/process";
import { randomGeoSearches, writeFleetFile } from "../../support/fleet-file";

// A restart loads the index saved beside the database instead of building it, but only when the
// database's fleet stamp (changed by triggers with every entry written) equals the saved one.

const dir = tempDir("tripswitch-saved-index-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fleetFile = (n: number, seed: number) => writeFleetFile(join(dir, `fleet-${files++}.sqlite`), n, seed);

function stampOf(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return readFleetStamp(db)!;
  } finally {
    db.close();
  }
}

function builtParts(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return buildIndexParts(activeIndexRows(db));
  } finally {
    db.close();
  }
}

/** A fleet of `n` entries with its index built and saved beside it. */
async function savedFleet(n: number, seed: number) {
  const path = fleetFile(n, seed);
  const parts = builtParts(path);
  const stamp = stampOf(path);
  const file = `${path}.fleet-index`;
  await saveIndexFile(file, parts, stamp);
  return { parts, stamp, file };
}

function indexOn(path: string, options: { changeLog?: boolean } = {}) {
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 5000");
  const index = new KdFleetSearchIndex({
    // As the service wires it (src/app.ts), or without the change log.
    source: options.changeLog ? sqliteSource(db) : sqliteSource(db, { changesSince: false, markSaved: false }),
    indexFile: `${path}.fleet-index`,
    parallelMinRows: 0,
  });
  return { index, close: () => (index.close(), db.close()) };
}

/**
 * An index built and saved on `path` and stopped; then `change` runs on another connection (a CLI command, a
 * restored copy), with what it returns handed back.
 */
async function savedThenChanged<T>(path: string, changeLog: boolean, change: (other: Database) => T): Promise<T> {
  const first = indexOn(path, { changeLog });
  await first.index.rebuildNow();
  await first.index.saveNow();
  first.close();
  const other = openDatabase(path).$client;
  try {
    return change(other);
  } finally {
    other.close();
  }
}

describe("fleet stamp", () => {
  test("every insert, update and delete of an entry changes it, in the same transaction; reads do not", () => {
    const path = fleetFile(50, 1);
    const db = openDatabase(path).$client;
    try {
      const seen = [readFleetStamp(db)!];
      const changed = () => {
        const now = readFleetStamp(db)!;
        expect(seen.some((s) => s.n === now.n || s.token === now.token)).toBe(false);
        seen.push(now);
      };
      db.query("SELECT count(*) FROM fleet_entries").get();
      expect(readFleetStamp(db)).toEqual(seen[0]);
      db.exec("UPDATE fleet_entries SET description = 'changed' WHERE slug = 'op-a-vehicle-1'");
      changed();
      db.exec("INSERT INTO fleet_entries (slug, netid, type, name, max_passengers, created_at, updated_at) VALUES ('op-a-new', 'OP-A', 'SUV', 'New', 4, 0, 0)");
      changed();
      db.exec("DELETE FROM fleet_entries WHERE slug = 'op-a-new'");
      changed();
      // A company's deletion removes its entries by cascade: that changes the fleet too.
      db.exec("DELETE FROM companies WHERE netid = 'OP-B'");
      changed();
      // A rolled-back change leaves the stamp as it was.
      const before = readFleetStamp(db);
      db.exec("BEGIN; UPDATE fleet_entries SET name = 'x'; ROLLBACK");
      expect(readFleetStamp(db)).toEqual(before);
    } finally {
      db.close();
    }
  });
});

describe("saved index file", () => {
  test("holds exactly the built parts, and is loaded only for the same stamp", async () => {
    const { parts, stamp, file } = await savedFleet(1_500, 2);
    expect(await loadIndexFile(file, stamp)).toEqual(parts);
    expect(await loadIndexFile(file, { ...stamp, n: stamp.n + 1 })).toBeUndefined();
    expect(await loadIndexFile(file, { ...stamp, token: "0".repeat(16) })).toBeUndefined();
    expect(await loadIndexFile(join(dir, "missing.fleet-index"), stamp)).toBeUndefined();
  });

  test("a damaged or foreign file is ignored, never half-read", async () => {
    const { parts, stamp, file } = await savedFleet(300, 3);
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 100));
    expect(await loadIndexFile(file, stamp)).toBeUndefined();
    writeFileSync(file, whole.subarray(0, 20));
    expect(await loadIndexFile(file, stamp)).toBeUndefined();
    writeFileSync(file, Buffer.concat([Buffer.from("NOTFLEET"), whole.subarray(8)]));
    expect(await loadIndexFile(file, stamp)).toBeUndefined();
    // Written by other index code (or another runtime): its code differs, however equal the stamp.
    const text = whole.toString("latin1");
    const other = INDEX_CODE.slice(0, -1) + (INDEX_CODE.endsWith("0") ? "1" : "0");
    writeFileSync(file, Buffer.from(text.replace(INDEX_CODE, other), "latin1"));
    expect(await loadIndexFile(file, stamp)).toBeUndefined();
    writeFileSync(file, whole);
    expect(await loadIndexFile(file, stamp)).toEqual(parts);
  });

  test("an index saves what it built; the next one on an unchanged database loads it and answers the same", async () => {
    const path = fleetFile(2_000, 4);
    const first = indexOn(path);
    await first.index.rebuildNow();
    expect(first.index.source).toBe("build");
    await first.index.saveNow();
    const expected = randomGeoSearches(40, 5).map((q) => first.index.search(q as never));
    first.close();
    expect(existsSync(`${path}.fleet-index`)).toBe(true);

    const second = indexOn(path);
    try {
      await second.index.rebuildNow();
      expect(second.index.source).toBe("file");
      expect(randomGeoSearches(40, 5).map((q) => second.index.search(q as never))).toEqual(expected);
      expect(expected.some((r) => r.total > 0)).toBe(true);
    } finally {
      second.close();
    }
  });

  test("a build is saved once saveDelayMs has passed, and the next not within saveEveryMs (but at saveNow)", async () => {
    const path = fleetFile(300, 7);
    const file = `${path}.fleet-index`;
    const db = new Database(path);
    db.exec("PRAGMA busy_timeout = 5000");
    const index = new KdFleetSearchIndex({ source: sqliteSource(db, { bySlug: false, changesSince: false, markSaved: false }), indexFile: file, saveDelayMs: 10, saveEveryMs: 60_000 });
    try {
      await index.rebuildNow();
      const deadline = Date.now() + 5_000;
      while (!existsSync(file) && Date.now() < deadline) await Bun.sleep(10);
      await index.saveNow();
      const first = stampOf(path);
      expect(await loadIndexFile(file, first)).toBeDefined();

      db.exec("UPDATE fleet_entries SET name = 'Renamed' WHERE rowid = (SELECT min(rowid) FROM fleet_entries)");
      await index.rebuildNow();
      await Bun.sleep(100);
      // The newer build waits for its turn: the file still holds the first stamp.
      expect(await loadIndexFile(file, stampOf(path))).toBeUndefined();
      expect(await loadIndexFile(file, first)).toBeDefined();
      await index.saveNow();
      expect(await loadIndexFile(file, stampOf(path))).toBeDefined();
    } finally {
      index.close();
      db.close();
    }
  });

  test("after any change to the fleet by any connection, a saved index no change log leads on from is not used: the index is built", async () => {
    const path = fleetFile(800, 6);
    // Another process moves one vehicle far away.
    const moved = await savedThenChanged(path, false, (other) => {
      const row = other.query<{ slug: string; lat: number; lon: number }, []>("SELECT slug, lat, lon FROM fleet_entries WHERE active = 1 AND lat IS NOT NULL LIMIT 1").get()!;
      other.exec(`UPDATE fleet_entries SET lat = -lat, lon = CASE WHEN lon > 0 THEN lon - 180 ELSE lon + 180 END WHERE slug = '${row.slug}'`);
      return row;
    });

    const second = indexOn(path);
    try {
      await second.index.rebuildNow();
      expect(second.index.source).toBe("build");
      const near = second.index.search({ centres: [{ lat: moved.lat, lon: moved.lon }], radiusKm: 1, types: undefined, words: [], offset: 0, limit: 100 });
      expect(near.hits.map((h) => h.entry.slug)).not.toContain(moved.slug);
      const where = second.index.search({ centres: [{ lat: -moved.lat, lon: moved.lon > 0 ? moved.lon - 180 : moved.lon + 180 }], radiusKm: 1, types: undefined, words: [], offset: 0, limit: 100 });
      expect(where.hits.map((h) => h.entry.slug)).toContain(moved.slug);
      // …and it saves the new build for the next start.
      await second.index.saveNow();
      expect(await loadIndexFile(`${path}.fleet-index`, stampOf(path))).toBeDefined();
    } finally {
      second.close();
    }
  });
});

describe("fleet change log", () => {
  const changed = (db: Database, since: { n: number; token: string }, max = 1_000) => fleetChangesSince(db, since, max)?.sort();

  test("logs the slugs changed after the saved index: inserts, updates (both slugs of a rename), deletes, cascades", () => {
    const path = fleetFile(60, 11);
    const db = openDatabase(path).$client;
    try {
      const before = readFleetStamp(db)!;
      expect(changed(db, before)).toEqual([]);
      // No index saved yet: nothing is logged, so nothing is covered.
      db.exec("UPDATE fleet_entries SET description = 'x' WHERE slug = 'op-a-vehicle-1'");
      expect(changed(db, before)).toBeUndefined();

      const saved = readFleetStamp(db)!;
      markFleetIndexSaved(db, saved);
      expect(changed(db, saved)).toEqual([]);
      db.exec("UPDATE fleet_entries SET description = 'y' WHERE slug = 'op-a-vehicle-1'");
      db.exec("UPDATE fleet_entries SET description = 'z' WHERE slug = 'op-a-vehicle-1'");
      db.exec("INSERT INTO fleet_entries (slug, netid, type, name, max_passengers, created_at, updated_at) VALUES ('op-a-new', 'OP-A', 'SUV', 'New', 4, 0, 0)");
      db.exec("DELETE FROM fleet_entries WHERE slug = 'op-a-vehicle-5'");
      db.exec("UPDATE fleet_entries SET slug = 'op-a-renamed' WHERE slug = 'op-a-vehicle-7'");
      expect(changed(db, saved)).toEqual(["op-a-new", "op-a-renamed", "op-a-vehicle-1", "op-a-vehicle-5", "op-a-vehicle-7"]);
      // More slugs than the caller takes: not covered (it builds instead).
      expect(changed(db, saved, 4)).toBeUndefined();
      // A company's deletion removes its entries by cascade: each is logged.
      const opB = db.query<{ slug: string }, []>("SELECT slug FROM fleet_entries WHERE netid = 'OP-B'").all().map((r) => r.slug);
      db.exec("DELETE FROM companies WHERE netid = 'OP-B'");
      expect(changed(db, saved)).toEqual(["op-a-new", "op-a-renamed", "op-a-vehicle-1", "op-a-vehicle-5", "op-a-vehicle-7", ...opB].sort());
      // A rolled-back change logs nothing.
      db.exec("BEGIN; UPDATE fleet_entries SET name = 'x' WHERE slug = 'op-a-vehicle-9'; ROLLBACK");
      expect(changed(db, saved)).not.toContain("op-a-vehicle-9");
    } finally {
      db.close();
    }
  });

  test("only the last saved stamp is a starting point; saving a newer one drops the older rows", () => {
    const path = fleetFile(40, 12);
    const db = openDatabase(path).$client;
    try {
      const first = readFleetStamp(db)!;
      markFleetIndexSaved(db, first);
      db.exec("UPDATE fleet_entries SET name = 'a' WHERE slug = 'op-a-vehicle-1'");
      const second = readFleetStamp(db)!;
      markFleetIndexSaved(db, second);
      expect(db.query<{ c: number }, []>("SELECT count(*) AS c FROM fleet_changes").get()!.c).toBe(0);
      db.exec("UPDATE fleet_entries SET name = 'b' WHERE slug = 'op-a-vehicle-3'");
      expect(changed(db, second)).toEqual(["op-a-vehicle-3"]);
      // The older index's changes are gone from the log: it is not covered any more.
      expect(changed(db, first)).toBeUndefined();
      // Nor is a stamp this database never had.
      expect(changed(db, { n: second.n, token: "0000000000000000" })).toBeUndefined();
    } finally {
      db.close();
    }
  });

  test(`past ${FLEET_CHANGE_LOG_LIMIT.toLocaleString("en-US")} changes since the saved index nothing is logged, and the log covers nothing`, () => {
    const path = fleetFile(40, 13);
    const db = openDatabase(path).$client;
    try {
      const saved = readFleetStamp(db)!;
      markFleetIndexSaved(db, saved);
      db.exec("UPDATE fleet_entries SET name = 'a' WHERE slug = 'op-a-vehicle-1'");
      expect(changed(db, saved)).toEqual(["op-a-vehicle-1"]);
      // As if a mass import had made 50,000 changes (the counter alone, to keep the test quick).
      db.exec(`UPDATE fleet_generation SET n = log_base + ${FLEET_CHANGE_LOG_LIMIT} WHERE id = 1`);
      db.exec("UPDATE fleet_entries SET name = 'b' WHERE slug = 'op-a-vehicle-3'");
      expect(db.query<{ c: number }, [string]>("SELECT count(*) AS c FROM fleet_changes WHERE slug = ?").get("op-a-vehicle-3")!.c).toBe(0);
      expect(changed(db, saved)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  test("a restart after changes by another process loads the saved index, re-reads just those entries, and answers as a fresh build", async () => {
    const path = fleetFile(2_000, 14);
    // Another process moves one vehicle to the other side of the world, takes one out of service, renames one
    // and adds one.
    await savedThenChanged(path, true, (other) => {
      const located = other.query<{ slug: string }, []>("SELECT slug FROM fleet_entries WHERE active = 1 AND lat IS NOT NULL ORDER BY rowid LIMIT 3").all();
      other.exec(`UPDATE fleet_entries SET lat = -lat, lon = CASE WHEN lon > 0 THEN lon - 180 ELSE lon + 180 END WHERE slug = '${located[0].slug}'`);
      other.exec(`UPDATE fleet_entries SET active = 0 WHERE slug = '${located[1].slug}'`);
      other.exec(`UPDATE fleet_entries SET slug = 'op-x-renamed', name = 'Renamed café' WHERE slug = '${located[2].slug}'`);
      other.exec("INSERT INTO fleet_entries (slug, netid, type, name, description, max_passengers, lat, lon, airports, created_at, updated_at) VALUES ('op-a-added', 'OP-A', 'LIMO', 'Added', 'cafe', 6, 10, 20, 'JFK', 0, 0)");
    });

    const restarted = indexOn(path, { changeLog: true });
    const freshDb = new Database(path, { readonly: true });
    try {
      await restarted.index.rebuildNow();
      expect(restarted.index.source).toBe("file");
      expect(restarted.index.changedSinceSaved).toBe(5);
      const rows = [...activeIndexRows(freshDb)];
      const reference = new KdFleetSearchIndex({ source: rowsSource(() => rows), useWorker: false });
      await reference.rebuildNow();
      const searches = [
        ...randomGeoSearches(60, 15),
        { centres: [{ lat: 10, lon: 20 }], radiusKm: 5, types: undefined, words: [], offset: 0, limit: 20 },
        { centres: [{ lat: 10, lon: 20 }], radiusKm: 5, types: ["LIMO"], words: ["cafe"], offset: 0, limit: 20 },
      ];
      const answers = (index: KdFleetSearchIndex) => searches.map((q) => index.search(q as never));
      expect(answers(restarted.index)).toEqual(answers(reference));
      expect(restarted.index.search(searches[60] as never).hits.map((h) => h.entry.slug)).toContain("op-a-added");
      expect(restarted.index.size).toBe(reference.size);
      reference.close();
    } finally {
      freshDb.close();
      restarted.close();
    }
  });

  test("an index that cannot re-read entries (no loadSlugs) builds instead of loading a saved index that is behind", async () => {
    const path = fleetFile(300, 16);
    await savedThenChanged(path, true, (other) => other.exec("UPDATE fleet_entries SET name = 'Renamed' WHERE rowid = (SELECT min(rowid) FROM fleet_entries WHERE active = 1)"));

    const db = new Database(path);
    db.exec("PRAGMA busy_timeout = 5000");
    const index = new KdFleetSearchIndex({
      source: sqliteSource(db, { bySlug: false, markSaved: false }),
      indexFile: `${path}.fleet-index`,
    });
    try {
      await index.rebuildNow();
      expect(index.source).toBe("build");
    } finally {
      index.close();
      db.close();
    }
  });
});
