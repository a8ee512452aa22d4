// The live event bound's stored bytes on PostgreSQL: counted per company and quarter hour in live_event_usage by every
// statement that stores bodies, read as a few rows instead of a sum over every body of the window. One database of
// its own for the whole file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NewLiveEvent } from "../../../domain/events/live-events";
import type { BookingEvent } from "../../../domain/trips/booking";
import type { ChangeAnnouncer } from "../../../domain/trips/ports";
import { LIVE_EVENT_RETENTION_SECONDS } from "../../../domain/retention";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgBookingRepository } from "../../../adapters/postgres/booking-repository";
import { insertLiveEvents, PgLiveEventLog, USAGE_BUCKET_SECONDS } from "../../../adapters/postgres/live-event-log";
import { prunePgExpired } from "../../../adapters/postgres/retention";
import { migrations } from "../../../adapters/postgres/migrations";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { appendLog, create, newBooking } from "../contract/trips-fixtures";

let cluster: TestDatabase;
let db: PgDb;
beforeAll(async () => {
  cluster = await startDatabase();
  db = openPostgres(cluster.url, { max: 6 });
  await migrate(db.$client);
}, 120_000);
afterAll(async () => {
  await db?.$client.close();
  await cluster?.stop();
}, 60_000);

const now = () => Math.floor(Date.now() / 1000);
const WINDOW = LIVE_EVENT_RETENTION_SECONDS;
let serial = 0;

/** One event's rows for both parties of a booking, its body (of `bytes` bytes) charged to `payer`. */
function rows(payer: string, transactionId: string, bytes: number, createdAt: number, type = "TRIP_UPDATED"): NewLiveEvent[] {
  const bodyId = `body-${process.pid}-${++serial}`;
  const body = "x".repeat(bytes);
  return (["requester", "provider"] as const).map((role) => ({ netid: `${payer}-${role}`, transactionId, kind: "booking", role, type, body, bodyId, payer, bytes, createdAt }));
}

/** What the bound's old read summed: every body `payer` stored since `since`. */
async function summed(payer: string, since: number): Promise<number> {
  const [row] = await db.$client.unsafe("SELECT coalesce(sum(bytes), 0) AS n FROM live_event_bodies WHERE netid = $1 AND created_at >= $2", [payer, since]);
  return Number(row.n);
}

/** An announcer whose every event stores a body of `bytes` bytes charged to `payer` (no outbox messages). */
function liveAnnouncer(payer: string, bytes: number): ChangeAnnouncer {
  return {
    messages: () => [],
    wake: () => {},
    live: (events: BookingEvent[], booking) => events.flatMap((e) => rows(payer, booking.transactionId, bytes, now(), e.type)),
  };
}

describe("live_event_usage", () => {
  test("every statement that stores bodies counts them: a new booking's one statement, a change in its savepoint, the log's own writes", async () => {
    const log = new PgLiveEventLog(db);
    const payer = "usage-all";
    for (const groupCommit of [true, false]) {
      const bookings = new PgBookingRepository(db, liveAnnouncer(payer, 1_000), async () => {}, { groupCommit });
      const made = await Promise.all(Array.from({ length: 5 }, () => newBooking()).map((b) => bookings.change({ requesterId: b.requesterId, requesterResNo: b.requesterResNo }, create(b))));
      for (const id of made) await bookings.change({ transactionId: id }, appendLog("moved", now()));
    }
    log.append(rows(payer, "position-of-none", 333, now(), "position"));
    await log.flush();
    const since = now() - WINDOW;
    // 2 × (5 new + 5 changes) bodies of 1,000 bytes and one of 333: each counted once, whatever stored it.
    expect(await summed(payer, since)).toBe(20_333);
    expect(await log.usedSince(payer, since)).toBe(20_333);
  });

  test("a body stored twice (one event id) is counted once", async () => {
    const log = new PgLiveEventLog(db);
    const once = rows("usage-once", "t-once", 500, now());
    await insertLiveEvents(db.$client, once);
    await insertLiveEvents(db.$client, once);
    expect(await log.usedSince("usage-once", now() - WINDOW)).toBe(500);
  });

  test("connections never wait on each other's rows: a transaction holding its count open does not hold up another's", async () => {
    const log = new PgLiveEventLog(db);
    const [a, b] = [await db.$client.reserve(), await db.$client.reserve()];
    try {
      await a.unsafe("BEGIN");
      await insertLiveEvents(a, rows("usage-busy", "t-a", 100, now()));
      // Without rows of its own, the second connection's count would wait for the first's commit: it would fail here.
      await b.unsafe("SET lock_timeout = '1s'");
      await insertLiveEvents(b, rows("usage-busy", "t-b", 200, now()));
      expect(await log.usedSince("usage-busy", now() - WINDOW)).toBe(200);
      await a.unsafe("COMMIT");
      expect(await log.usedSince("usage-busy", now() - WINDOW)).toBe(300);
      const writers = await db.$client.unsafe("SELECT count(DISTINCT writer) AS n FROM live_event_usage WHERE netid = 'usage-busy'");
      expect(Number(writers[0].n)).toBe(2);
    } finally {
      await b.unsafe("RESET lock_timeout");
      a.release();
      b.release();
    }
  });

  test("the window counts whole quarter hours: never less than the bodies stored since its start, at most one quarter more", async () => {
    const log = new PgLiveEventLog(db);
    const t = now();
    const since = t - WINDOW;
    const quarterStart = Math.floor(since / USAGE_BUCKET_SECONDS) * USAGE_BUCKET_SECONDS;
    await insertLiveEvents(db.$client, rows("usage-edge", "t-before", 10, quarterStart - 1)); // the quarter before: not counted
    await insertLiveEvents(db.$client, rows("usage-edge", "t-start", 20, quarterStart)); // the start's quarter, before the start: counted
    await insertLiveEvents(db.$client, rows("usage-edge", "t-in", 40, since + 1));
    expect(await summed("usage-edge", since)).toBe(since === quarterStart ? 60 : 40);
    expect(await log.usedSince("usage-edge", since)).toBe(60);
  });

  test("retention folds past quarter hours into writer 0 and drops those before the window; the window's sum is kept", async () => {
    const log = new PgLiveEventLog(db);
    const t = now();
    const [a, b] = [await db.$client.reserve(), await db.$client.reserve()];
    try {
      for (const conn of [a, b]) {
        await insertLiveEvents(conn, rows("usage-fold", "t-old", 1, t - WINDOW - 2 * USAGE_BUCKET_SECONDS));
        await insertLiveEvents(conn, rows("usage-fold", "t-mid", 10, t - 3 * 3600));
        await insertLiveEvents(conn, rows("usage-fold", "t-now", 100, t));
      }
    } finally {
      a.release();
      b.release();
    }
    const since = t - WINDOW;
    expect(await log.usedSince("usage-fold", since)).toBe(220);
    const pruned = await prunePgExpired(db, t);
    expect(pruned?.live_event_usage).toBeGreaterThanOrEqual(2);
    expect(pruned?.live_event_usage_folded).toBeGreaterThanOrEqual(2);
    const left = await db.$client.unsafe("SELECT bucket, writer, bytes FROM live_event_usage WHERE netid = 'usage-fold' ORDER BY bucket, writer");
    const current = Math.floor(t / USAGE_BUCKET_SECONDS);
    expect(left.map((r: { bucket: string | number; writer: number; bytes: string | number }) => [Number(r.bucket), r.writer, Number(r.bytes)])).toEqual([
      [Math.floor((t - 3 * 3600) / USAGE_BUCKET_SECONDS), 0, 20],
      ...[a, b].map(() => [current, expect.any(Number), 100]),
    ]);
    expect(await log.usedSince("usage-fold", since)).toBe(220);
  });

  test("the migration counts the bodies stored before it", async () => {
    await insertLiveEvents(db.$client, rows("usage-migrated", "t-1", 7, now() - 7200));
    await insertLiveEvents(db.$client, rows("usage-migrated", "t-2", 8, now()));
    const counted = await db.$client.unsafe("SELECT bucket, sum(bytes) AS n FROM live_event_usage WHERE netid = 'usage-migrated' GROUP BY bucket ORDER BY bucket");
    const migration = migrations.find((m) => m.tag.endsWith("_live_event_usage"))!;
    const backfill = migration.sql.split("--> statement-breakpoint").find((s) => s.includes("INSERT INTO"))!;
    await db.$client.begin(async (tx) => {
      await tx.unsafe("DELETE FROM live_event_usage");
      await tx.unsafe(backfill);
      const rebuilt = await tx.unsafe("SELECT bucket, sum(bytes) AS n FROM live_event_usage WHERE netid = 'usage-migrated' GROUP BY bucket ORDER BY bucket");
      expect(rebuilt.map((r: object) => ({ ...r }))).toEqual(counted.map((r: object) => ({ ...r })));
      const [{ n }] = await tx.unsafe("SELECT count(*) AS n FROM live_event_usage WHERE writer <> 0");
      expect(Number(n)).toBe(0);
      // The whole table rebuilt: put the other tests' rows back as they were.
      throw new Rollback();
    }).catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });
  });
});

class Rollback extends Error {}
