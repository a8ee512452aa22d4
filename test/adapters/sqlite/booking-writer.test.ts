import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { statSync } from "node:fs";
import { openDatabase } from "../../../adapters/sqlite/db";
import { BookingWriter } from "../../../adapters/sqlite/booking-writer";
import { tempDir } from "../../support/process";

// The booking writer runs each group in one transaction on its own connection, each change in a savepoint:
// a change whose precondition fails is a conflict (to decide again), any other failure an error; either
// way it is rolled back alone and the rest of the group commits.

function database(): string {
  const path = join(tempDir("tripswitch-writer-"), "db.sqlite");
  const db = openDatabase(path).$client;
  db.exec("CREATE TABLE bookings (k TEXT PRIMARY KEY, v NOT NULL)");
  db.close();
  return path;
}

const STATEMENTS = ["INSERT INTO bookings (k, v) VALUES (?, ?)", "UPDATE bookings SET v = ? WHERE k = ? AND v = ?"];

describe("booking writer", () => {
  test("one transaction per group; conflicts and errors roll back their own change only", async () => {
    const path = database();
    const writer = (await BookingWriter.start(path, STATEMENTS))!;
    expect(writer).toBeDefined();
    try {
      const outcomes = await writer.write([
        [{ statement: 0, args: ["a", 1] }],
        // The key is taken by the change before: a conflict.
        [{ statement: 0, args: ["a", 2] }],
        [{ statement: 1, args: [5, "a", 1], mustChange: true }],
        // Decided on a version that is gone: changes no row, a conflict; its first statement is undone too.
        [{ statement: 0, args: ["b", 1] }, { statement: 1, args: [9, "a", 1], mustChange: true }],
        // Not a precondition: an error (NOT NULL), reported with SQLite's message.
        [{ statement: 0, args: ["c", null] }],
        [{ statement: 0, args: ["d", 4] }],
      ]);
      expect(outcomes).toEqual([{ ok: true }, { conflict: true }, { ok: true }, { conflict: true }, { error: expect.stringContaining("NOT NULL") }, { ok: true }]);
      const db = new Database(path, { readonly: true });
      expect(db.query("SELECT k, v FROM bookings ORDER BY k").all()).toEqual([
        { k: "a", v: 5 },
        { k: "d", v: 4 },
      ]);
      db.close();
    } finally {
      await writer.stop();
    }
    expect(writer.usable).toBe(false);
    await expect(writer.write([[{ statement: 0, args: ["e", 1] }]])).rejects.toThrow("stopped");
  });

  test("groups sent before the previous one is answered commit in order", async () => {
    const path = database();
    const writer = (await BookingWriter.start(path, STATEMENTS))!;
    try {
      const groups = await Promise.all(Array.from({ length: 20 }, (_, i) => writer.write([[i === 0 ? { statement: 0, args: ["n", 0] } : { statement: 1, args: [i, "n", i - 1], mustChange: true }]])));
      expect(groups.flat()).toEqual(Array.from({ length: 20 }, () => ({ ok: true })));
    } finally {
      await writer.stop();
    }
  });

  test("its commits checkpoint the WAL into the file unless background checkpoints run", async () => {
    const sizes: Record<string, number> = {};
    for (const autoCheckpoint of [true, false]) {
      const path = database();
      const writer = (await BookingWriter.start(path, STATEMENTS, { autoCheckpoint }))!;
      try {
        // ~1,300 pages, past SQLite's automatic checkpoint threshold of 1,000.
        const blob = "x".repeat(4000);
        for (let g = 0; g < 13; g++) await writer.write(Array.from({ length: 100 }, (_, i) => [{ statement: 0, args: [`k${g}-${i}`, blob] }]));
        // Measured while the writer's connection is open: closing the last connection checkpoints whatever it holds.
        sizes[String(autoCheckpoint)] = statSync(path).size;
      } finally {
        await writer.stop();
      }
    }
    expect(sizes.true).toBeGreaterThan(3 * 1024 * 1024);
    expect(sizes.false).toBeLessThan(1024 * 1024);
  });

  test("a writer started without automatic checkpoints checkpoints its commits again once told to", async () => {
    const path = database();
    const writer = (await BookingWriter.start(path, STATEMENTS, { autoCheckpoint: false }))!;
    try {
      // What the service does when its background checkpointer dies.
      writer.resumeAutoCheckpoints();
      const blob = "x".repeat(4000);
      for (let g = 0; g < 13; g++) await writer.write(Array.from({ length: 100 }, (_, i) => [{ statement: 0, args: [`k${g}-${i}`, blob] }]));
    } finally {
      await writer.stop();
    }
    // As with automatic checkpoints from the start (the test above), unlike without them (< 1 MB).
    expect(statSync(path).size).toBeGreaterThan(3 * 1024 * 1024);
  });

  test("a writer that dies fails the groups waiting on it, says so, and is not used again", async () => {
    const problems: string[] = [];
    const workerUrl = new URL("../../support/workers/crashing-writer.worker.ts", import.meta.url).href;
    const writer = (await BookingWriter.start(database(), STATEMENTS, { workerUrl, onProblem: (m) => problems.push(m) }))!;
    expect(writer.usable).toBe(true);
    await expect(writer.write([[{ statement: 0, args: ["a", 1] }]])).rejects.toThrow("booking writer failed");
    expect(writer.usable).toBe(false);
    expect(problems).toEqual([expect.stringContaining("bookings are written on the main connection from now on")]);
    await expect(writer.write([[{ statement: 0, args: ["b", 1] }]])).rejects.toThrow("booking writer failed");
  });

  test("a writer that cannot start says so and is not used", async () => {
    const problems: string[] = [];
    const writer = await BookingWriter.start(database(), STATEMENTS, { workerUrl: join(tempDir("tripswitch-writer-"), "missing.worker.ts"), onProblem: (m) => problems.push(m) });
    expect(writer).toBeUndefined();
    expect(problems).toEqual([expect.stringContaining("booking writer unavailable")]);
  });

  test("a statement the schema does not allow stops it from opening", async () => {
    const problems: string[] = [];
    const writer = await BookingWriter.start(database(), ["INSERT INTO nowhere VALUES (?)"], { onProblem: (m) => problems.push(m) });
    expect(writer).toBeUndefined();
    expect(problems[0]).toContain("no such table");
  });
});
