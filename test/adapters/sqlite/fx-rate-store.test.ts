import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase } from "../../../adapters/sqlite/db";
import { SqliteFxRateStore } from "../../../adapters/sqlite/fx-rate-store";
import { importStamp } from "../../../domain/fx/fx-table";
import { tempDir } from "../../support/process";

describe("the FX import stamp", () => {
  test("moves at every import: its time, or one past the last stamp within the same second", () => {
    expect(importStamp(1_000, null)).toBe(1_000);
    expect(importStamp(1_000, 990)).toBe(1_000);
    expect(importStamp(1_000, 1_000)).toBe(1_001);
    expect(importStamp(1_000, 1_004)).toBe(1_005);
  });

  test("a second table imported in the same second is seen by another process's store", async () => {
    const path = join(tempDir("tripswitch-fx-"), "db.sqlite");
    const db = openDatabase(path);
    migrate(db);
    const importer = new SqliteFxRateStore(db, 60_000);
    const other = new SqliteFxRateStore(openDatabase(path), 60_000);
    try {
      await importer.replace({ date: "2024-06-27", rates: { USD: 1.07 } }, 1_000);
      other.refresh();
      expect(other.imported()).toEqual({ date: "2024-06-27", rates: { USD: 1.07 } });
      await importer.replace({ date: "2024-06-28", rates: { USD: 1.1 } }, 1_000);
      other.refresh();
      expect(other.imported()).toEqual({ date: "2024-06-28", rates: { USD: 1.1 } });
    } finally {
      importer.close();
      other.close();
    }
  });
});
