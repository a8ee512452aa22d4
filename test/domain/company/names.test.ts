import { describe, expect, test } from "bun:test";
import { companyNames } from "../../../domain/company/names";

describe("companyNames (a store's namesOf)", () => {
  test("answers known companies from memory, reads the rest in one read, keys by the netid as asked and leaves unknown ones out", async () => {
    const reads: string[][] = [];
    const stored = [
      { netidLower: "beta", name: "Beta Cars" },
      { netidLower: "gamma", name: "Gamma Limos" },
    ];
    const names = await companyNames(
      ["Alpha", "BETA", "gamma", "nobody", "Beta"],
      (key) => (key === "alpha" ? { name: "Alpha Rides" } : undefined),
      async (keys) => {
        reads.push(keys);
        return stored.filter((r) => keys.includes(r.netidLower));
      },
    );
    expect(reads).toEqual([["beta", "gamma", "nobody"]]);
    expect([...names]).toEqual([
      ["Alpha", "Alpha Rides"],
      ["BETA", "Beta Cars"],
      ["gamma", "Gamma Limos"],
      ["Beta", "Beta Cars"],
    ]);
  });

  test("reads nothing when every company is known", async () => {
    let read = 0;
    const names = await companyNames(["a"], () => ({ name: "A" }), async () => (read++, []));
    expect(read).toBe(0);
    expect(names.get("a")).toBe("A");
  });
});
