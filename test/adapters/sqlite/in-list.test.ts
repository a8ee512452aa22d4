import { describe, expect, test } from "bun:test";
import { migrate, openDatabase, type Db } from "../../../adapters/sqlite/db";
import { inList } from "../../../adapters/sqlite/in-list";
import { SqliteCompanyRepository } from "../../../adapters/sqlite/account-repositories";
import { SqliteVehicleHolds } from "../../../adapters/sqlite/vehicle-holds";

/** The texts of the statements `db.$client.query` is asked for while `run` runs. */
async function textsQueried(db: Db, run: () => Promise<void>): Promise<Set<string>> {
  const texts = new Set<string>();
  const query = db.$client.query.bind(db.$client);
  db.$client.query = ((text: string) => {
    texts.add(text);
    return query(text);
  }) as typeof db.$client.query;
  try {
    await run();
  } finally {
    db.$client.query = query;
  }
  return texts;
}

function database(): Db {
  const db = openDatabase(":memory:");
  migrate(db);
  return db;
}

const netids = Array.from({ length: 40 }, (_, k) => `P-${String(k).padStart(2, "0")}`);

describe("IN lists of a few sizes (docs/performance.md#in-lists-of-a-few-sizes)", () => {
  test("a list is padded to its size class with its last value; placeholders count from the first asked", () => {
    expect(inList(["a"], 1)).toEqual({ placeholders: "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8", args: ["a", "a", "a", "a", "a", "a", "a", "a"] });
    const nine = inList(netids.slice(0, 9), 4);
    expect(nine.args).toEqual([...netids.slice(0, 9), ...Array(7).fill(netids[8])]);
    expect(nine.placeholders.split(", ")).toEqual(Array.from({ length: 16 }, (_, k) => `?${k + 4}`));
    // At most `max` (the read's chunk), never fewer than the values.
    expect(inList(Array.from({ length: 300 }, (_, k) => `x${k}`), 1, 500).args.length).toBe(500);
    expect(inList(Array.from({ length: 600 }, (_, k) => `x${k}`), 1, 500).args.length).toBe(600);
    expect(() => inList([], 1)).toThrow();
  });

  test("company names of lists of 1 to 40 netids: each named once, by 4 statement texts (one per size class), not 40", async () => {
    const db = database();
    const insert = db.$client.query("INSERT INTO companies (netid, netid_lower, name, co_type, plan, main_email, main_phone, created_at) VALUES (?, ?, ?, 'IO', 'FREE', ?, ?, 0)");
    netids.forEach((n, k) => insert.run(n, n.toLowerCase(), `Company ${k}`, `${n.toLowerCase()}@names.example`, `+1212555${String(k).padStart(4, "0")}`));
    const repo = new SqliteCompanyRepository(db);
    const answers: Array<Map<string, string>> = [];
    const texts = await textsQueried(db, async () => {
      for (let length = 1; length <= netids.length; length++) answers.push(await repo.namesOf([...netids.slice(0, length - 1), "NOBODY", netids[length - 1]]));
    });
    answers.forEach((names, k) => expect([...names.keys()].sort()).toEqual(netids.slice(0, k + 1)));
    expect(answers[39].get("P-39")).toBe("Company 39");
    expect([...texts].filter((t) => t.includes("FROM companies")).length).toBe(4);
    db.$client.close();
  });

  test("live holds of lists of 1 to 40 providers: each hold once, by 4 statement texts, not 40", async () => {
    const db = database();
    // Blackouts of vehicles the test does not list (the holds' reader does not look at the fleet).
    db.$client.exec("PRAGMA foreign_keys = OFF");
    const insert = db.$client.query(
      "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at) VALUES (?, ?, ?, 'BLACKOUT', NULL, 1000, 5000, 'service', 0)",
    );
    netids.forEach((n, k) => insert.run(`hold-${k}`, `car-${k}`, n));
    const holds = new SqliteVehicleHolds(db);
    const answers: string[][] = [];
    const texts = await textsQueried(db, async () => {
      for (let length = 1; length <= netids.length; length++) answers.push((await holds.liveHoldsOf(netids.slice(0, length), 0, 2000)).map((h) => h.slug).sort());
    });
    answers.forEach((slugs, k) => expect(slugs).toEqual(Array.from({ length: k + 1 }, (_, j) => `car-${j}`).sort()));
    expect([...texts].filter((t) => t.includes("FROM vehicle_holds")).length).toBe(4);
    db.$client.close();
  });
});
