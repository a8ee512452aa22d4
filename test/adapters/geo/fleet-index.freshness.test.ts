import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { addVehicle, company } from "../../support/fleet";
import { slugBase } from "../../../domain/fleet/slug";
import type { NewFleetEntry } from "../../../domain/fleet/ports";
import { KdFleetSearchIndex } from "../../../adapters/geo/fleet-index";
import type { IndexRow } from "../../../domain/fleet/source";
import { mirrorSource, rowsSource } from "./sources";

let h: Harness;
afterEach(() => h?.close());

function rows(netid: string, count: number, name: string): NewFleetEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    netid,
    slugBase: slugBase(netid, `${name} ${i}`),
    type: "SEDAN",
    name: `${name} ${i}`,
    description: "",
    imageUrl: null,
    maxPassengers: 3,
    maxLuggage: null,
    lat: 40.64 + ((i * 7919) % 1000) / 5000,
    lon: -73.78 + ((i * 104729) % 1000) / 5000,
    airports: [],
    minimumRate: "10.00",
    hourlyRate: "10.00",
    currency: "USD",
    active: true,
    createdAt: 0,
    updatedAt: 0,
  }));
}

describe("fleet index freshness", () => {
  test("a new vehicle is found by search within 1 second", async () => {
    h = createHarness();
    const op = await company(h);
    await h.indexed();
    const slug = await addVehicle(h, op.auth, { name: "Fresh Arrival" });
    const added = performance.now();
    let seenAfter = Infinity;
    // Bounded poll: at most 1 s, every 10 ms.
    while (performance.now() - added < 1000) {
      const res = await h.request("GET", "/api/search/fleet?airports=JFK&q=fresh", { headers: op.auth });
      if (res.body.data.items.some((i: { slug: string }) => i.slug === slug)) {
        seenAfter = performance.now() - added;
        break;
      }
      await Bun.sleep(10);
    }
    expect(seenAfter).toBeLessThan(1000);
  });

  test("searches keep answering with the old or the new fleet while the index rebuilds", async () => {
    h = createHarness();
    const op = await company(h);
    await h.services.fleet.insertAll(rows(op.netid, 10_000, "Old"));
    h.services.fleetIndex.fleetChanged();
    await h.indexed();
    const search = () => h.request("GET", "/api/search/fleet?airports=JFK&radius_km=100", { headers: op.auth });
    const before = (await search()).body.data.total;
    expect(before).toBe(10_000);

    await h.services.fleet.insertAll(rows(op.netid, 2_000, "New"));
    h.services.fleetIndex.fleetChanged();
    const totals: number[] = [];
    const deadline = performance.now() + 3000;
    // Search continuously until the new fleet shows up (bounded by the deadline).
    while (performance.now() < deadline) {
      const res = await search();
      expect(res.status).toBe(200);
      totals.push(res.body.data.total);
      if (res.body.data.total === 12_000) break;
      await Bun.sleep(1);
    }
    expect(totals[0]).toBe(10_000);
    expect(totals.at(-1)).toBe(12_000);
    expect(totals.every((t) => t === 10_000 || t === 12_000)).toBe(true);
  });
});

describe("fleet index build fallback", () => {
  test("when the build worker cannot start, the index is built in-process from the full fleet", async () => {
    const entries = rows("FALLBACK", 500, "Fallback").map((e, i) => ({ ...e, slug: `fallback-${i}` }));
    const failures: unknown[] = [];
    const index = new KdFleetSearchIndex({
      source: rowsSource(() => entries as never),
      workerUrl: "./does-not-exist.worker.ts",
      onWorkerFailure: (e) => failures.push(e),
    });
    try {
      await index.rebuildNow();
      expect(failures).toHaveLength(1);
      const result = index.search({ centres: [{ lat: 40.64, lon: -73.78 }], radiusKm: 100, types: undefined, words: [], offset: 0, limit: 5 } as never);
      expect(result.total).toBe(500);
      expect(result.hits).toHaveLength(5);
    } finally {
      index.close();
    }
  });
});

describe("fleet index freshness over a mirroring source (PostgreSQL's)", () => {
  const car = (slug: string, lat: number): IndexRow => ({
    slug,
    netid: "MIRROR",
    type: "SEDAN",
    name: slug,
    description: "",
    imageUrl: null,
    maxPassengers: 3,
    maxLuggage: null,
    lat,
    lon: 10,
    airports: [],
    minimumRate: "10.00",
    hourlyRate: "10.00",
    currency: "USD",
  });
  const near = (index: KdFleetSearchIndex, lat: number) =>
    index.search({ centres: [{ lat, lon: 10 }], radiusKm: 1, types: undefined, words: [], offset: 0, limit: 10 }).hits.map((h) => h.entry.slug);

  test("a change told while a refresh that read the store before its commit runs is visible once whenFresh resolves", async () => {
    const m = mirrorSource();
    const index = new KdFleetSearchIndex({ source: m.source, useWorker: false, overlayDelayMs: 1, compactAfterMs: 60_000 });
    try {
      m.commit(car("early", 1));
      index.fleetChanged(["early"]);
      await index.whenFresh();
      expect(near(index, 1)).toEqual(["early"]);

      // The overlay's refresh for `second` reads the store; `late` is committed and told before that refresh ends.
      const reading = m.hold();
      m.commit(car("second", 2));
      index.fleetChanged(["second"]);
      const release = await reading;
      m.commit(car("late", 3));
      index.fleetChanged(["late"]);
      const composed = new Promise<void>((resolve) => {
        const stop = index.onChange(() => {
          stop();
          resolve();
        });
      });
      release();
      await composed;
      await index.whenFresh();
      expect(near(index, 2)).toEqual(["second"]);
      expect(near(index, 3)).toEqual(["late"]);
    } finally {
      index.close();
    }
  });
});
