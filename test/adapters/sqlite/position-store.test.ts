import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase } from "../../../adapters/sqlite/db";
import { SqlitePositionStore, TRAIL_LENGTH } from "../../../adapters/sqlite/position-store";
import type { ChauffeurPosition } from "../../../domain/tracking/position";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(path: string) {
  const db = openDatabase(path);
  migrate(db);
  return { db, store: new SqlitePositionStore(db) };
}

const T0 = Date.now();
const at = (i: number): ChauffeurPosition => ({ lat: 40 + i / 1000, lon: -73 - i / 1000, timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString(), receivedAt: T0 + i, chfName: `driver ${i}` });

describe("chauffeur position store", () => {
  test("the last position is answered at once; after a restart it and a bounded trail are read back from the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tripswitch-positions-"));
    dirs.push(dir);
    const path = join(dir, "db.sqlite");
    const first = open(path);
    const n = TRAIL_LENGTH + 25;
    for (let i = 1; i <= n; i++) first.store.save("booking-a", at(i));
    first.store.save("booking-b", at(7));
    expect(await first.store.last("booking-a")).toEqual(at(n));
    first.store.close();
    first.db.$client.close();

    const second = open(path);
    expect(await second.store.last("booking-a")).toEqual(at(n));
    expect(await second.store.last("booking-b")).toEqual(at(7));
    expect(await second.store.last("booking-c")).toBeUndefined();
    const trail = await second.store.trail("booking-a");
    expect(trail).toHaveLength(TRAIL_LENGTH);
    expect(trail.map((p) => p.lat)).toEqual(Array.from({ length: TRAIL_LENGTH }, (_, k) => at(n - TRAIL_LENGTH + 1 + k).lat));
    // The trail keeps counting after a restart: the next position replaces the oldest.
    second.store.save("booking-a", at(n + 1));
    const next = await second.store.trail("booking-a");
    expect(next).toHaveLength(TRAIL_LENGTH);
    expect(next.at(-1)!.lat).toBe(at(n + 1).lat);
    expect(next[0].lat).toBe(at(n - TRAIL_LENGTH + 2).lat);
    const rows = second.db.$client.query("SELECT count(*) AS n FROM position_trail").get() as { n: number };
    expect(rows.n).toBe(TRAIL_LENGTH + 1);
    second.store.close();
    second.db.$client.close();
  });

  test("positions wait in memory while the database refuses writes, and are written once it takes them again", async () => {
    const errors: unknown[] = [];
    const db = openDatabase(":memory:");
    migrate(db);
    const store = new SqlitePositionStore(db, (e) => errors.push(e));
    db.$client.exec("ALTER TABLE position_trail RENAME TO position_trail_away");
    store.save("booking-a", at(1));
    store.flush();
    expect(errors).toHaveLength(1);
    expect(await store.last("booking-a")).toEqual(at(1));
    db.$client.exec("ALTER TABLE position_trail_away RENAME TO position_trail");
    store.flush();
    expect(db.$client.query("SELECT lat FROM chauffeur_positions WHERE transaction_id = 'booking-a'").get()).toEqual({ lat: at(1).lat });
    store.close();
    db.$client.close();
  });
});
