// The migration that gives the provider record its earlier offers (docs/terms.md#provider-record), run on bookings the
// cascade moved before it: within the record's 90 days each provider a booking moved on from gets its row, on both
// databases; from then on the trigger adds one whenever a booking's provider changes, and nothing else does.
import { describe, expect, test } from "bun:test";
import { isoAt, type Booking, type Offer } from "../../../domain/trips/booking";
import { migrate as migrateSqlite } from "../../../adapters/sqlite/db";
import { migrations as sqliteMigrations } from "../../../adapters/sqlite/migrations";
import { migrate as migratePostgres } from "../../../adapters/postgres/db";
import { migrations as pgMigrations } from "../../../adapters/postgres/migrations";
import { bookingInsert, postgresBefore, sqliteBefore } from "../../support/migrations";

/** A booking's row as the schema before this migration holds it: without the columns the statements added later. */
const oldRowInsert = (b: Parameters<typeof bookingInsert>[0], placeholder: "?" | "$") => bookingInsert(b, placeholder, ["settleUnits", "currency", "fareFinalAt", "flightDue"]);
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

const EARLIER = "SELECT transaction_id AS id, provider_id AS provider, submit_date AS submitted FROM earlier_offers ORDER BY provider_id";

function expectBackfilled(before: ReturnType<typeof oldData>, rows: Array<{ id: string; provider: string; submitted: number | string }>) {
  expect(rows.map((r) => [r.id, r.provider, Number(r.submitted)])).toEqual([
    [before.moved.transactionId, "P-ONE", before.moved.submitDate],
    [before.moved.transactionId, "P-TWO", before.moved.submitDate],
  ]);
}

describe("the earlier offers migration on existing data", () => {
  test("SQLite: moved bookings of the last 90 days backfilled; the trigger adds the provider a booking moves on from", () => {
    const { db, until } = sqliteBefore(NEW_TAG);
    const sqlite = db.$client;
    const before = oldData();
    for (const b of Object.values(before)) sqlite.query(oldRowInsert(b, "?")[0]).run(...(oldRowInsert(b, "?")[1] as never[]));
    expect(migrateSqlite(db)).toContain(sqliteMigrations[until].tag);
    expectBackfilled(before, sqlite.query(EARLIER).all() as never);

    sqlite.query("UPDATE bookings SET status = 'CONFIRMED' WHERE transaction_id = ?").run(before.notMoved.transactionId);
    sqlite.query("UPDATE bookings SET provider_id = 'P-FOUR' WHERE transaction_id = ?").run(before.moved.transactionId);
    const rows = sqlite.query(EARLIER).all() as Array<{ id: string; provider: string }>;
    expect(rows.map((r) => r.provider)).toEqual(["P-ONE", "P-THREE", "P-TWO"]);
    sqlite.close();
  });

  describe("PostgreSQL", () => {
    const postgres = postgresBefore(NEW_TAG);

    test("the same rows, and the same trigger", async () => {
      const { db, until } = await postgres.start();
      const client = db.$client;
      const before = oldData();
      for (const b of Object.values(before)) await client.unsafe(...oldRowInsert(b, "$"));
      expect(await migratePostgres(client)).toContain(pgMigrations[until].tag);
      expectBackfilled(before, await client.unsafe(EARLIER));

      await client.unsafe("UPDATE bookings SET status = 'CONFIRMED' WHERE transaction_id = $1", [before.notMoved.transactionId]);
      await client.unsafe("UPDATE bookings SET provider_id = 'P-FOUR' WHERE transaction_id = $1", [before.moved.transactionId]);
      const rows: Array<{ provider: string }> = await client.unsafe(EARLIER);
      expect(rows.map((r) => r.provider)).toEqual(["P-ONE", "P-THREE", "P-TWO"]);
    }, 120_000);
  });
});
