import { describe, expect, test } from "bun:test";
import { SearchAnswerCache } from "../../../domain/fleet/answer-cache";
import type { FleetChange, FleetChangeListener } from "../../../domain/fleet/ports";

/** An index that only has a generation and tells its listeners. */
class FakeIndex {
  generation = 0;
  readonly listeners = new Set<FleetChangeListener>();
  onChange(listener: FleetChangeListener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  swap(change: FleetChange | undefined, silently = false) {
    this.generation++;
    if (!silently) for (const l of this.listeners) l(this.generation, change);
  }
}

const JFK = { lat: 40.639447, lon: -73.779317 };
const LHR = { lat: 51.4706, lon: -0.461941 };
/** Asks for a key twice (answers are kept from the second time) and reports whether it was kept. */
function put<V>(cache: SearchAnswerCache<V>, key: string, value: V, bytes: number, s: Parameters<SearchAnswerCache<V>["set"]>[3]): boolean {
  cache.set(key, value, bytes, s);
  return cache.set(key, value, bytes, s);
}

const scope = (centre: { lat: number; lon: number }, airports: string[] = [], radiusKm = 50) => ({ centres: [centre], radiusKm, airports });

describe("search answer cache", () => {
  test("keeps answers up to its byte bound, the least recently used dropped first", () => {
    const index = new FakeIndex();
    const cache = new SearchAnswerCache<string>(index, 400);
    put(cache, "a", "A", 100, scope(JFK));
    put(cache, "b", "B", 100, scope(JFK));
    put(cache, "c", "C", 100, scope(JFK));
    expect(cache.get("a")).toBe("A");
    put(cache, "d", "D", 100, scope(JFK));
    put(cache, "e", "E", 100, scope(JFK));
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d", "e"].map((k) => cache.get(k))).toEqual(["A", "C", "D", "E"]);
    expect(cache.sizeBytes).toBe(400);
    // An answer larger than a quarter of the bound is not kept.
    put(cache, "big", "BIG", 101, scope(JFK));
    expect(cache.get("big")).toBeUndefined();
    expect(cache.hits).toBe(5);
    expect(cache.misses).toBe(2);
  });

  test("an answer is kept from the second time its key is asked for", () => {
    const cache = new SearchAnswerCache<string>(new FakeIndex(), 10_000);
    expect(cache.set("once", "1", 10, scope(JFK))).toBe(false);
    expect(cache.get("once")).toBeUndefined();
    expect(cache.set("once", "1", 10, scope(JFK))).toBe(true);
    expect(cache.get("once")).toBe("1");
    // Many searches asked once leave the kept answers alone.
    for (let i = 0; i < 1000; i++) cache.set(`new-${i}`, "x", 10, scope(JFK));
    expect(cache.get("once")).toBe("1");
    expect(cache.size).toBe(1);
  });

  test("a change drops the answers whose circles hold an old or new position, or that request an airport it serves", () => {
    const index = new FakeIndex();
    const cache = new SearchAnswerCache<string>(index, 10_000);
    put(cache, "jfk", "1", 10, scope(JFK, ["JFK"]));
    put(cache, "lhr", "2", 10, scope(LHR, ["LHR"]));
    put(cache, "lhr-small", "3", 10, scope(LHR, [], 1));
    index.swap({ points: [{ lat: LHR.lat + 0.05, lon: LHR.lon }], airports: [] });
    expect([cache.get("jfk"), cache.get("lhr"), cache.get("lhr-small")]).toEqual(["1", undefined, "3"]);
    index.swap({ points: [], airports: ["JFK"] });
    expect(cache.get("jfk")).toBeUndefined();
    expect(cache.get("lhr-small")).toBe("3");
    // A point exactly on the radius is inside.
    put(cache, "edge", "4", 10, { centres: [{ lat: 0, lon: 0 }], radiusKm: 111.19492664455873, airports: [] });
    index.swap({ points: [{ lat: 1, lon: 0 }], airports: [] });
    expect(cache.get("edge")).toBeUndefined();
  });

  test("a rebuilt index, or a generation the cache was not told about, drops everything", () => {
    const index = new FakeIndex();
    const cache = new SearchAnswerCache<string>(index, 10_000);
    put(cache, "a", "A", 10, scope(JFK));
    index.swap(undefined);
    expect(cache.get("a")).toBeUndefined();
    put(cache, "a", "A", 10, scope(JFK));
    index.swap({ points: [], airports: [] }, true);
    expect(cache.get("a")).toBeUndefined();
    put(cache, "a", "A", 10, scope(JFK));
    index.swap({ points: [], airports: [] }, true);
    index.swap({ points: [], airports: [] });
    expect(cache.get("a")).toBeUndefined();
    cache.close();
    expect(index.listeners.size).toBe(0);
  });
});
