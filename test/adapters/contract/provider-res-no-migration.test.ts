// The migration that keeps a provider's reservation number on one live booking, run on data written before it:
// it must not fail on duplicate numbers, and it decides who keeps a number the same way on both databases.
import { describe, expect, test } from "bun:test";
import { toBooking } from "../../../domain/trips/booking-record";
import type { Booking } from "../../../domain/trips/booking";
import { migrate as migrateSqlite } from "../../../adapters/sqlite/db";
import { migrations as sqliteMigrations } from "../../../adapters/sqlite/migrations";
import { migrate as migratePostgres } from "../../../adapters/postgres/db";
import { migrations as pgMigrations } from "../../../adapters/postgres/migrations";
import * as pgSchema from "../../../adapters/postgres/schema";
import { bookingInsert, postgresBefore, sqliteBefore } from "../../support/migrations";
import { newBooking } from "./trips-fixtures";

const arrow = (from: string, to: string, source = "provider:prov-user") => ({ timestamp: "2026-01-01T00:00:00Z", changeSource: source, changeDesc: `providerResNo ${from} → ${to}` });

/** Bookings as the old code could leave them. */
function oldData() {
  return {
    // A requester sent the number with its NEW: no line of the provider ever gave it.
    requesterSent: newBooking({ providerResNo: "P1-1001", submitDate: 1_800_000_500, affiliateExtra: { ourRef: "x" } }),
    // The provider gave it first, to this booking.
    providerGave: newBooking({ providerResNo: "P1-1001", submitDate: 1_800_000_100, changeLogs: [arrow("(none)", "P1-1001")] }),
    // The provider reused a number: two live bookings (the newer keeps it) and an ended one.
    reusedOld: newBooking({ providerResNo: "P1-2002", submitDate: 1_800_000_200, changeLogs: [arrow("(none)", "P1-2002")] }),
    reusedNew: newBooking({ providerResNo: "P1-2002", submitDate: 1_800_000_300, changeLogs: [{ ...arrow("none", "P1-2002", "exchange:delivery"), changeDesc: "delivered trip.new to the provider; providerResNo none → P1-2002" }] }),
    ended: newBooking({ providerResNo: "P1-2002", submitDate: 1_800_000_400, status: "CLOSE", changeLogs: [arrow("(none)", "P1-2002")] }),
  } satisfies Record<string, Booking>;
}

type Loaded = Record<keyof ReturnType<typeof oldData>, Booking>;

function expectDecided(before: ReturnType<typeof oldData>, after: Loaded): void {
  expect(after.requesterSent.providerResNo).toBeNull();
  expect(after.requesterSent.affiliateExtra).toEqual({ ourRef: "x", providerResNo: "P1-1001" });
  expect(after.requesterSent.changeLogs.at(-1)?.changeSource).toBe("exchange:migration");
  expect(after.providerGave.providerResNo).toBe("P1-1001");
  expect(after.providerGave.changeLogs).toEqual(before.providerGave.changeLogs);
  expect(after.reusedNew.providerResNo).toBe("P1-2002");
  expect(after.reusedOld.providerResNo).toBeNull();
  expect(after.reusedOld.changeLogs.at(-1)?.changeDesc).toContain("P1-2002 → (none)");
  expect(after.ended.providerResNo).toBe("P1-2002");
  // Everything else of each booking is as it was.
  for (const key of Object.keys(before) as Array<keyof Loaded>) {
    const { providerResNo: _a, changeLogs: _b, affiliateExtra: _c, ...rest } = after[key];
    const { providerResNo: _d, changeLogs: _e, affiliateExtra: _f, ...was } = before[key];
    expect(rest).toEqual(was);
  }
}

const NEW_TAG = /provider_res_no_live$/;

/** An INSERT of the booking's row as the database before the migration has it: the columns added later are left out. */
const oldRowInsert = (b: Booking, placeholder: "?" | "$") => bookingInsert(b, placeholder, ["offerDue", "settleUnits", "currency", "fareFinalAt", "flightDue"]);

describe("the provider-number migration on existing data", () => {
  test("SQLite: a requester's number moves to its extras, a reused live number stays on the newest, then the index holds", () => {
    const { db, until } = sqliteBefore(NEW_TAG);
    const sqlite = db.$client;
    const before = oldData();
    for (const b of Object.values(before)) {
      const [sql, params] = oldRowInsert(b, "?");
      sqlite.query(sql).run(...(params as never[]));
    }
    expect(migrateSqlite(db)).toContain(sqliteMigrations[until].tag);
    const after = Object.fromEntries(
      Object.entries(before).map(([k, b]) => [k, toBooking(sqlite.query("SELECT transaction_id AS transactionId, requester_id AS requesterId, requester_res_no AS requesterResNo, provider_id AS providerId, provider_res_no AS providerResNo, status, reservation_type AS reservationType, userid, source_platform AS sourcePlatform, target_platform AS targetPlatform, submit_date AS submitDate, pickup_date AS pickupDate, updated_at AS updatedAt, total_amount AS totalAmount, quote_valid_until AS quoteValidUntil, content_hash AS contentHash, version, trip_packet AS tripPacket, change_logs AS changeLogs, transaction_errors AS transactionErrors FROM bookings WHERE transaction_id = ?").get(b.transactionId) as never)]),
    ) as Loaded;
    expectDecided(before, after);
    expect(() => sqlite.query("UPDATE bookings SET provider_res_no = 'P1-1001' WHERE transaction_id = ?").run(before.reusedNew.transactionId)).toThrow(/UNIQUE/);
    sqlite.close();
  });

  describe("PostgreSQL", () => {
    const postgres = postgresBefore(NEW_TAG);

    test("the same decisions, then the index holds", async () => {
      const { db, until } = await postgres.start();
      const client = db.$client;
      const before = oldData();
      for (const b of Object.values(before)) await db.$client.unsafe(...oldRowInsert(b, "$"));
      expect(await migratePostgres(client)).toContain(pgMigrations[until].tag);
      const after: Record<string, Booking> = {};
      for (const [k, b] of Object.entries(before)) {
        const rows = await db.select().from(pgSchema.bookings);
        after[k] = toBooking(rows.find((r) => r.transactionId === b.transactionId)!);
      }
      expectDecided(before, after as Loaded);
      await expect(client.unsafe("UPDATE bookings SET provider_res_no = 'P1-1001' WHERE transaction_id = $1", [before.reusedNew.transactionId])).rejects.toThrow(/duplicate key|unique/i);
    }, 120_000);
  });
});
