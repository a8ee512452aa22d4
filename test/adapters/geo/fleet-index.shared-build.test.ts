import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { openDatabase } from "../../../adapters/sqlite/db";
import { Database } from "bun:sqlite";
import { activeIndexRows, SqliteFleetSource } from "../../../adapters/sqlite/fleet-source";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import { buildIndexParts } from "../../../adapters/geo/build/trees";
import type { IndexParts } from "../../../adapters/geo/parts";
import { sqliteSource } from "./sources";
import { tempDir } from "../../support/process";
import { randomGeoSearches, writeFleetFile } from "../../support/fleet-file";

// The shared build (two workers, each reading half the rows by rowid, then one merging the halves and
// building the type trees while the other builds the all-types tree) must give exactly the parts one
// builder gives over the whole fleet in one pass: same ids, string tables, trees and slug table.

const dir = tempDir("tripswitch-shared-build-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fleetFile = (name: string, n: number, seed: number) => writeFleetFile(join(dir, `${name}.sqlite`), n, seed);

function oneBuilder(path: string): IndexParts {
  const db = openDatabase(path);
  try {
    return buildIndexParts(activeIndexRows(db.$client));
  } finally {
    db.$client.close();
  }
}

/** An index whose build workers read the fleet file `path` (the first build shared by two of them). */
function fileIndex(path: string, options: Omit<ConstructorParameters<typeof KdFleetSearchIndex>[0], "source"> = {}) {
  const db = new Database(path, { readonly: true });
  const index = new KdFleetSearchIndex({ source: sqliteSource(db, { bySlug: false }), parallelMinRows: 0, ...options });
  const close = index.close.bind(index);
  index.close = () => (close(), db.close());
  return index;
}

async function sharedBuild(path: string, nodeSize?: number): Promise<IndexParts> {
  const index = fileIndex(path, { nodeSize, onWorkerFailure: (e) => { throw e; } });
  try {
    // What a rebuild swaps in; read through the private step so the parts themselves can be compared. The
    // shared build hands its type trees over after the rest (the index serves meanwhile): wait for them.
    const built = await (index as unknown as { upkeep: { buildParts(): Promise<{ parts: IndexParts; typeTrees?: Promise<IndexParts["typeTrees"]> }> } }).upkeep.buildParts();
    if (built.typeTrees) {
      expect(built.parts.typeTrees).toEqual([]);
      built.parts.typeTrees = await built.typeTrees;
    }
    return built.parts;
  } finally {
    index.close();
  }
}

describe("shared index build", () => {
  for (const [n, seed] of [
    [3_000, 1],
    [1_500, 2],
    [40, 3],
  ] as const)
    test(`two workers build exactly what one builder builds (${n} rows)`, async () => {
      const path = fleetFile(`fleet-${n}-${seed}`, n, seed);
      const expected = oneBuilder(path);
      expect(expected.size).toBeGreaterThan(0);
      expect(expected.unlocated.length).toBeGreaterThan(0);
      const shared = await sharedBuild(path);
      expect(Object.keys(shared).sort()).toEqual(Object.keys(expected).sort());
      for (const key of Object.keys(expected) as Array<keyof IndexParts>) expect([key, shared[key]]).toEqual([key, expected[key]]);
    });

  test("an empty fleet and a one-row fleet", async () => {
    const empty = fleetFile("empty", 0, 4);
    expect(await sharedBuild(empty)).toEqual(oneBuilder(empty));
    const one = fleetFile("one", 1, 5);
    expect(await sharedBuild(one)).toEqual(oneBuilder(one));
  });

  test("searches over a shared build answer as over an in-process build", async () => {
    const path = fleetFile("search", 2_000, 6);
    const shared = fileIndex(path);
    const db = openDatabase(path);
    const local = new KdFleetSearchIndex({ source: new SqliteFleetSource(db.$client), useWorker: false });
    try {
      await Promise.all([shared.rebuildNow(), local.rebuildNow()]);
      expect(shared.size).toBe(local.size);
      for (const query of randomGeoSearches(50, 7)) expect(shared.search(query as never)).toEqual(local.search(query as never));
    } finally {
      shared.close();
      local.close();
      db.$client.close();
    }
  });

  test("if the type trees fail after the all-types tree came, the index answers without them, then builds them again", async () => {
    const path = fleetFile("type-trees-fail", 2_000, 8);
    const errors: string[] = [];
    const workerUrl = new URL("../../support/workers/failing-type-trees.worker.ts", import.meta.url).href;
    const index = fileIndex(path, { workerUrl, debounceMs: 10, onError: (e) => errors.push(String(e)) });
    const db = openDatabase(path);
    const local = new KdFleetSearchIndex({ source: new SqliteFleetSource(db.$client), useWorker: false });
    const pending = () => (index as unknown as { view: { base: { typeTreesPending: boolean } } }).view.base.typeTreesPending;
    const searches = randomGeoSearches(50, 9);
    try {
      await Promise.all([index.rebuildNow(), local.rebuildNow()]);
      expect(searches.some((q) => q.types)).toBe(true);
      for (const query of searches) expect(index.search(query as never)).toEqual(local.search(query as never));
      // Bounded: the failure schedules a build on one worker, which brings every tree.
      const deadline = Date.now() + 10_000;
      while ((errors.length === 0 || pending()) && Date.now() < deadline) await Bun.sleep(20);
      expect(errors).toEqual([expect.stringContaining("type trees failed")]);
      expect(pending()).toBe(false);
      for (const query of searches) expect(index.search(query as never)).toEqual(local.search(query as never));
    } finally {
      index.close();
      local.close();
      db.$client.close();
    }
  });
});
