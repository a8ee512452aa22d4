// The migration that gives the provider record its earlier offers (docs/terms.md#provider-record), run on bookings the
// cascade moved before it: within the record's 90 days each provider a booking moved on from gets its row, on both
// databases; from then on the trigger adds one whenever a booking's provider changes, and nothing else does.
import { afterAll, describe, expect, test } from "bun:test";
import { getTableColumns } from "drizzle-orm";
import { toRow } from "../../../domain/trips/booking-record";
import { isoAt, type Booking, type Offer } from "../../../domain/trips/booking";
import { migrate as migrateSqlite, openDatabase } from "../../../adapters/sqlite/db";
import { migrations as sqliteMigrations } from "../../../adapters/sqlite/migrations";
import * as sqliteSchema from "../../../adapters/sqlite/schema";
import { migrate as migratePostgres, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { migrations as pgMigrations } from "../../../adapters/postgres/migrations";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { newBooking } from "./trips-fixtures";

const NEW_TAG = /earlier_offers$/;
const now = Math.floor(Date.now() / 1000);
const offer = (provider: string, at: number): Offer => ({ provider, fee: "100.00", currency: "USD", status: "REJECT", reason: "PROVIDER_REJECTED", at: isoAt(at) });

/** Bookings as the cascade left them before the migration. */
function oldData() {
  const day = 86_400;
  return {
    moved: newBooking({ providerId: "P-THREE", submitDate: now - day, offers: [offer("P-ONE", now - day), offer("P-TWO", now - day + 60), offer("P-THREE", now - day + 120)] }),
    movedLongAgo: newBooking({ providerId: "P-TWO", submitDate: now - 100 * day, offers: [offer("P-ONE", now - 100 * day), offer("P-TWO", now - 100 * day + 60)] }),
    notMoved: newBooking({ providerId: "P-ONE", submitDate: now - day, offers: [offer("P-ONE", now - day)] }),
    beforeTheCascade: newBooking({ providerId: "P-ONE", submitDate: now - day }),
  } satisfies Record<string, Booking>;
}

/** The booking's row as an INSERT. */
function rowInsert(b: Booking, placeholder: "?" | "$"): [string, unknown[]] {
  const row = toRow(b, 1);
  const columns = Object.entries(getTableColumns(sqliteSchema.bookings));
  const marks = columns.map((_, i) => (placeholder === "?" ? "?" : `$${i + 1}`));
  return [`INSERT INTO bookings (${columns.map(([, c]) => `"${c.name}"`).join(", ")}) VALUES (${marks.join(", ")})`, columns.map(([key]) => row[key as keyof typeof row])];
}

const EARLIER = "SELECT transaction_id AS id, provider_id AS provider, submit_date AS submitted FROM earlier_offers ORDER BY provider_id";

function expectBackfilled(before: ReturnType<typeof oldData>, rows: Array<{ id: string; provider: string; submitted: number | string }>) {
  expect(rows.map((r) => [r.id, r.provider, Number(r.submitted)])).toEqual([
    [before.moved.transactionId, "P-ONE", before.moved.submitDate],
    [before.moved.transactionId, "P-TWO", before.moved.submitDate],
  ]);
}

describe("the earlier offers migration on existing data", () => {
  test("SQLite: moved bookings of the last 90 days backfilled; the trigger adds the provider a booking moves on from", () => {
    const db = openDatabase(":memory:");
    const sqlite = db.$client;
    sqlite.exec("CREATE TABLE IF NOT EXISTS __migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
    const until = sqliteMigrations.findIndex((m) => NEW_TAG.test(m.tag));
    expect(until).toBeGreaterThan(0);
    for (const m of sqliteMigrations.slice(0, until)) {
      for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) sqlite.exec(statement);
      sqlite.query("INSERT INTO __migrations (tag, applied_at) VALUES (?, 0)").run(m.tag);
    }
    const before = oldData();
    for (const b of Object.values(before)) sqlite.query(rowInsert(b, "?")[0]).run(...(rowInsert(b, "?")[1] as never[]));
    expect(migrateSqlite(db)).toContain(sqliteMigrations[until].tag);
    expectBackfilled(before, sqlite.query(EARLIER).all() as never);

    sqlite.query("UPDATE bookings SET status = 'CONFIRMED' WHERE transaction_id = ?").run(before.notMoved.transactionId);
    sqlite.query("UPDATE bookings SET provider_id = 'P-FOUR' WHERE transaction_id = ?").run(before.moved.transactionId);
    const rows = sqlite.query(EARLIER).all() as Array<{ id: string; provider: string }>;
    expect(rows.map((r) => r.provider)).toEqual(["P-ONE", "P-THREE", "P-TWO"]);
    sqlite.close();
  });

  describe("PostgreSQL", () => {
    let cluster: TestDatabase | undefined;
    let db: PgDb | undefined;
    afterAll(async () => {
      await db?.$client.close();
      await cluster?.stop();
    }, 60_000);

    test("the same rows, and the same trigger", async () => {
      cluster = await startDatabase();
      db = openPostgres(cluster.url, { max: 2 });
      const client = db.$client;
      await client.unsafe("CREATE TABLE IF NOT EXISTS __migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)").simple();
      const until = pgMigrations.findIndex((m) => NEW_TAG.test(m.tag));
      expect(until).toBeGreaterThan(0);
      for (const m of pgMigrations.slice(0, until)) {
        await client.begin(async (tx) => {
          for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) await tx.unsafe(statement).simple();
          await tx.unsafe("INSERT INTO __migrations (tag, applied_at) VALUES ($1, 0)", [m.tag]);
        });
      }
      const before = oldData();
      for (const b of Object.values(before)) await client.unsafe(...rowInsert(b, "$"));
      expect(await migratePostgres(client)).toContain(pgMigrations[until].tag);
      expectBackfilled(before, await client.unsafe(EARLIER));

      await client.unsafe("UPDATE bookings SET status = 'CONFIRMED' WHERE transaction_id = $1", [before.notMoved.transactionId]);
      await client.unsafe("UPDATE bookings SET provider_id = 'P-FOUR' WHERE transaction_id = $1", [before.moved.transactionId]);
      const rows: Array<{ provider: string }> = await client.unsafe(EARLIER);
      expect(rows.map((r) => r.provider)).toEqual(["P-ONE", "P-THREE", "P-TWO"]);
    }, 120_000);
  });
});
