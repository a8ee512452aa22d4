import { describe, expect, test } from "bun:test";
import { HoldIndex, type VehicleHolds } from "../../../domain/fleet/holds";

/**
 * The quote side's copy of holds (docs/availability.md#what-a-quote-reads): read by provider, only the providers a
 * quote asks, each copy a second old at most, one read per provider at a time, and a change on this instance
 * (forget) makes the provider's next quote read again, even while a read begun before it is under way.
 */

type Row = { provider: string; slug: string; from: number; to: number };

function fakeStore(rows: Row[]) {
  const reads: string[][] = [];
  let gate: Promise<void> | undefined;
  const store = {
    async liveHoldsOf(providers: readonly string[]) {
      reads.push([...providers]);
      const answer = rows.filter((r) => providers.includes(r.provider));
      if (gate) await gate;
      return answer;
    },
  } as unknown as VehicleHolds;
  return {
    store,
    reads,
    rows,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
  };
}

describe("HoldIndex", () => {
  test("reads only the providers asked, the stale ones in one read, and each again once its copy is older than the ttl", async () => {
    let now = 1_000_000;
    const fake = fakeStore([
      { provider: "A", slug: "a1", from: 100, to: 200 },
      { provider: "B", slug: "b1", from: 150, to: 250 },
      { provider: "C", slug: "c1", from: 0, to: 1000 },
    ]);
    const index = new HoldIndex(fake.store, () => now, 1000);
    await index.ready(["A", "B"]);
    expect(fake.reads).toEqual([["A", "B"]]);
    expect([...index.busyNow("A", 120, 130)]).toEqual(["a1"]);
    expect([...index.busyNow("B", 0, 100)]).toEqual([]);
    // C was never asked: not read, nothing held as far as this copy knows.
    expect(index.busyNow("C", 0, 1000).size).toBe(0);
    now += 500;
    await index.ready(["A", "C"]);
    expect(fake.reads).toEqual([["A", "B"], ["C"]]);
    now += 600;
    expect([...(await index.busySlugs("A", 120, 130))]).toEqual(["a1"]);
    expect(fake.reads).toEqual([["A", "B"], ["C"], ["A"]]);
  });

  test("quotes asking at once share one read; forget makes only that provider's next quote read again", async () => {
    const fake = fakeStore([{ provider: "A", slug: "a1", from: 0, to: 10 }]);
    const index = new HoldIndex(fake.store, () => 5_000, 1000);
    await Promise.all([index.ready(["A"]), index.ready(["A"]), index.busySlugs("A", 0, 5)]);
    expect(fake.reads).toEqual([["A"]]);
    await index.ready(["A", "B"]);
    expect(fake.reads).toEqual([["A"], ["B"]]);
    index.forget("A");
    await index.ready(["A", "B"]);
    expect(fake.reads).toEqual([["A"], ["B"], ["A"]]);
  });

  test("a change during a read: the quotes waiting get what was read, the next quote reads again and sees the change", async () => {
    const fake = fakeStore([{ provider: "A", slug: "a1", from: 0, to: 10 }]);
    const index = new HoldIndex(fake.store, () => 5_000, 1000);
    const open = fake.hold();
    const waiting = index.ready(["A"]);
    // The provider's holds change while the read is under way (its answer was taken before the change).
    fake.rows.push({ provider: "A", slug: "a2", from: 0, to: 10 });
    index.forget("A");
    open();
    await waiting;
    expect([...index.busyNow("A", 0, 5)]).toEqual(["a1"]);
    expect([...(await index.busySlugs("A", 0, 5))].sort()).toEqual(["a1", "a2"]);
    expect(fake.reads).toEqual([["A"], ["A"]]);
  });
});
