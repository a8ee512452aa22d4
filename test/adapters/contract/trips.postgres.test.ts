// The trips repositories on PostgreSQL as several instances use them: two pools on one database, as two processes
// would have, each with its own repositories. PostgreSQL that cannot start fails the file; it never skips.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { OutboxMessage } from "../../../domain/delivery/ports";
import type { Booking } from "../../../domain/trips/booking";
import { SecretBox } from "../../../adapters/security/secrets";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgBookingRepository } from "../../../adapters/postgres/booking-repository";
import { PgIntegrationRepository } from "../../../adapters/postgres/integration-repository";
import { PgOutbox } from "../../../adapters/postgres/outbox";
import { PgIdempotencyStore } from "../../../adapters/postgres/idempotency-store";
import { PgOfferDeadlines } from "../../../adapters/postgres/offer-deadlines";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { appendLog, create, newBooking, TestAnnouncer } from "./trips-fixtures";

const secrets = new SecretBox("cd".repeat(32));
const LEASE = 30;

interface Instance {
  db: PgDb;
  bookings: PgBookingRepository;
  outbox: PgOutbox;
  idempotency: PgIdempotencyStore;
}

function instance(db: PgDb, owner: string, groupCommit: boolean): Instance {
  const integrations = new PgIntegrationRepository(db, secrets);
  const bookings = new PgBookingRepository(db, new TestAnnouncer(integrations), (list) => integrations.prefetch(list.flatMap((b) => [b.providerId, b.requesterId])), { groupCommit });
  return { db, bookings, outbox: new PgOutbox(db, { owner, leaseSeconds: LEASE, bookings, integrations }), idempotency: new PgIdempotencyStore(db) };
}

let cluster: TestDatabase;
/** Two instances per mode: each change its own transaction, or group commit. */
const instances: Record<"single" | "grouped", [Instance, Instance]> = {} as never;

beforeAll(async () => {
  cluster = await startDatabase();
  const first = openPostgres(cluster.url, { max: 6 });
  const second = openPostgres(cluster.url, { max: 4 });
  await migrate(first.$client);
  instances.single = [instance(first, "instance-one", false), instance(second, "instance-two", false)];
  instances.grouped = [instance(first, "grouped-one", true), instance(second, "grouped-two", true)];
  const companies = new PgCompanyRepository(first);
  const integrations = new PgIntegrationRepository(first, secrets);
  for (const netid of ["REQ-CO", "PROV-CO"]) {
    await companies.createWithFirstUser(
      { netid, name: netid, coType: "IO", plan: "FREE", mainEmail: `${netid.toLowerCase()}@example.com`, mainPhone: `+49${netid.length}${netid.charCodeAt(0)}`, address: null, notes: null, createdAt: 1 },
      { uid: `u-${netid}`, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "h", createdAt: 1 },
    );
  }
  const plain = { deliveryAuth: null, luggage: "notes" as const, webhookSecret: null, webhookFormat: "events" as const, acceptTripsFrom: "anyone" as const };
  await integrations.save({ netid: "PROV-CO", deliveryUrl: "https://prov.example/in", webhookUrl: null, ...plain, webhookVerifiedAt: null }, 1);
  await integrations.save({ netid: "REQ-CO", deliveryUrl: null, webhookUrl: "https://req.example/hook", ...plain, webhookVerifiedAt: 1 }, 1);
}, 120_000);

afterAll(async () => {
  for (const db of new Set(Object.values(instances).flatMap((pair) => pair.map((i) => i.db)))) await db.$client.close();
  await cluster?.stop();
}, 60_000);

/** Creates `n` bookings (two messages each: a delivery and a webhook), due at `at`. */
async function bookingsDueAt([one, two]: [Instance, Instance], n: number, at: number): Promise<Booking[]> {
  const made = Array.from({ length: n }, () => newBooking());
  await Promise.all(made.map((b, i) => (i % 2 ? one : two).bookings.change({ transactionId: b.transactionId }, create(b, at))));
  return made;
}

/**
 * Settles every pending message but those of `booking`: earlier tests leave theirs pending on the shared database,
 * and one read hands out at most 16 messages of one company (docs/security.md#delivery-and-limits), oldest first.
 */
async function settleAllBut(i: Instance, booking: Booking): Promise<void> {
  await i.db.execute(sql`UPDATE outbox_messages SET status = 'delivered' WHERE status = 'pending' AND transaction_id <> ${booking.transactionId}`);
}

const mine = (messages: OutboxMessage[], bookings: Booking[]) => {
  const ids = new Set(bookings.map((b) => b.transactionId));
  return messages.filter((m) => ids.has(m.transactionId));
};

for (const mode of ["single", "grouped"] as const) {
  describe(`trips repositories on PostgreSQL, two instances on one database, ${mode === "grouped" ? "with" : "without"} group commit`, () => {
    let one: Instance;
    let two: Instance;
    beforeAll(() => {
      [one, two] = instances[mode];
    });

    test("concurrent due calls of two owners never hand out one message twice, round after round", async () => {
      for (let round = 0; round < 8; round++) {
        const now = 1_850_000_000 + round * 1000;
        // Earlier rounds' and tests' messages are settled: they are older, so they would take this round's share of
        // each company's DUE_PER_COMPANY (an instance's own claims count towards it, docs/security.md#delivery-and-limits).
        await one.db.execute(sql`UPDATE outbox_messages SET status = 'delivered' WHERE status = 'pending'`);
        const made = await bookingsDueAt([one, two], 20, now - 1);
        const expected = new Set((await Promise.all(made.map((b) => one.outbox.forBooking(b.transactionId)))).flat().map((m) => m.id));
        expect(expected.size).toBe(40);
        const claimed = new Map<string, number[]>([
          ["one", []],
          ["two", []],
        ]);
        // Bounded: each pass claims something while anything is left.
        for (let pass = 0; pass < 40; pass++) {
          const got = await Promise.all([one.outbox.due(now, 3), two.outbox.due(now, 4), one.outbox.due(now, 2), two.outbox.due(now, 5)]);
          got.forEach((messages, i) => claimed.get(i % 2 ? "two" : "one")!.push(...mine(messages, made).map((m) => m.id)));
          if (got.every((messages) => messages.length === 0)) break;
        }
        const all = [...claimed.get("one")!, ...claimed.get("two")!];
        expect(all.length).toBe(new Set(all).size);
        expect(new Set(all)).toEqual(expected);
        expect(claimed.get("one")!.length).toBeGreaterThan(0);
        expect(claimed.get("two")!.length).toBeGreaterThan(0);
        // Claimed messages are held: neither owner gets them again while the lease runs.
        expect(mine(await one.outbox.due(now + LEASE - 1, 1000), made)).toEqual([]);
        expect(mine(await two.outbox.due(now + LEASE - 1, 1000), made)).toEqual([]);
      }
    }, 60_000);

    test("a lease that ran out is claimable by the other owner; the stale owner's recordAttempt is refused and writes nothing", async () => {
      const now = 1_860_000_000;
      const [b] = await bookingsDueAt([one, two], 1, now);
      await settleAllBut(one, b);
      const [delivery] = mine(await one.outbox.due(now, 1000), [b]).filter((m) => m.channel === "delivery");
      expect(delivery).toBeDefined();
      expect(mine(await two.outbox.due(now + LEASE - 1, 1000), [b]).map((m) => m.id)).not.toContain(delivery.id);
      const takenOver = mine(await two.outbox.due(now + LEASE + 1, 1000), [b]).filter((m) => m.id === delivery.id);
      expect(takenOver).toHaveLength(1);

      const before = await one.outbox.get(delivery.id);
      const recorded = await one.outbox.recordAttempt(delivery, { ok: true, status: 200, at: now + LEASE + 2 }, { ref: { transactionId: b.transactionId }, decide: appendLog("stale", now + LEASE + 2, "DELIVERED") });
      expect(recorded).toBe(false);
      expect(await one.outbox.get(delivery.id)).toEqual(before!);
      expect((await one.bookings.findById(b.transactionId))?.changeLogs).toEqual([]);
      expect(await one.outbox.forBooking(b.transactionId)).toHaveLength(2);
      // Neither may the stale owner put it off or release it.
      await one.outbox.putOff([{ id: delivery.id, until: now + 10_000 }]);
      await one.outbox.release([delivery.id]);
      expect(await one.outbox.get(delivery.id)).toEqual(before!);
      expect(mine(await one.outbox.due(now + LEASE + 3, 1000), [b]).map((m) => m.id)).not.toContain(delivery.id);

      expect(await two.outbox.recordAttempt(takenOver[0], { ok: true, status: 200, at: now + LEASE + 3 }, { ref: { transactionId: b.transactionId }, decide: appendLog("current", now + LEASE + 3, "DELIVERED") })).toBe(true);
      expect(await one.outbox.get(delivery.id)).toMatchObject({ status: "delivered", attempts: 1, deliveredAt: now + LEASE + 3 });
      expect((await one.bookings.findById(b.transactionId))?.changeLogs.map((l) => l.changeDesc)).toEqual(["current"]);
    });

    test("a live owner renews its claims past the lease; once it stops, the other owner takes them over", async () => {
      // Real time and a short lease: the renewals run every third of it.
      const short = (i: Instance, owner: string) => new PgOutbox(i.db, { owner, leaseSeconds: 0.6, bookings: i.bookings });
      const [a, b] = [short(one, `renewing-a-${mode}`), short(two, `renewing-b-${mode}`)];
      const at = () => Date.now() / 1000;
      const [booking] = await bookingsDueAt([one, two], 1, at() - 1);
      const claimed = mine(await a.due(at(), 1000), [booking]);
      // The booking's delivery and webhook.
      expect(claimed).toHaveLength(2);
      await Bun.sleep(1500);
      // Two and a half leases later the claim is still a's.
      expect(mine(await b.due(at(), 1000), [booking])).toEqual([]);
      a.close();
      await Bun.sleep(1000);
      expect(mine(await b.due(at(), 1000), [booking]).map((m) => m.id).sort()).toEqual(claimed.map((m) => m.id).sort());
      b.close();
    });

    test("a renewal never waits for a claim whose attempt is being recorded: the record's reads through the pool find a connection", async () => {
      // Two connections: the recording transaction's, and the one its prefetch reads through (as a booking change's does).
      const pool = openPostgres(cluster.url, { max: 2 });
      const outbox = new PgOutbox(pool, { owner: `recording-${mode}`, leaseSeconds: 0.6, bookings: one.bookings });
      const at = () => Date.now() / 1000;
      const [booking] = await bookingsDueAt([one, two], 1, at() - 1);
      const [recording, waiting] = mine(await outbox.due(at(), 1000), [booking]);
      try {
        const answered = await pool.$client.begin(async (tx) => {
          // The record's transaction holds its message's row, while renewals run every 200 ms.
          await tx`UPDATE outbox_messages SET attempts = attempts WHERE id = ${recording.id}`;
          await Bun.sleep(700);
          const read = pool.$client`SELECT 1 AS one`.then(() => "read");
          return Promise.race([read, Bun.sleep(5000).then(() => "no connection")]);
        });
        expect(answered).toBe("read");
        // The other claim was renewed meanwhile: still this owner's, past the first lease.
        const [row] = await pool.$client`SELECT lease_owner AS owner, lease_until AS until FROM outbox_messages WHERE id = ${waiting.id}`;
        expect(row.owner).toBe(`recording-${mode}`);
        expect(Number(row.until)).toBeGreaterThan(at());
      } finally {
        outbox.close();
        await pool.$client.close({ timeout: 1 });
      }
    });

    test("released and put-off messages are claimable at once by the other owner", async () => {
      const now = 1_870_000_000;
      const [b] = await bookingsDueAt([one, two], 1, now);
      await settleAllBut(one, b);
      const claimed = mine(await one.outbox.due(now, 1000), [b]);
      expect(claimed).toHaveLength(2);
      await one.outbox.release([claimed[0].id]);
      await one.outbox.putOff([{ id: claimed[1].id, until: now + 5 }]);
      expect(mine(await two.outbox.due(now, 1000), [b]).map((m) => m.id)).toEqual([claimed[0].id]);
      expect(mine(await two.outbox.due(now + 5, 1000), [b]).map((m) => m.id)).toEqual([claimed[1].id]);
      expect(await one.outbox.get(claimed[1].id)).toMatchObject({ nextAttemptAt: now + 5, attempts: 0, status: "pending" });
    });

    test("20 concurrent changes of one booking from two instances all apply", async () => {
      const b = newBooking();
      await one.bookings.change({ transactionId: b.transactionId }, create(b));
      const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).bookings.change({ transactionId: b.transactionId }, appendLog(`line ${i}`, 1_880_000_000 + i))));
      expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      const stored = await two.bookings.findById(b.transactionId);
      expect(stored?.changeLogs.map((l) => l.changeDesc).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i}`).sort());
      const [row] = await one.db.execute<{ version: number }>(sql`SELECT version FROM bookings WHERE transaction_id = ${b.transactionId}`);
      expect(Number(row.version)).toBe(21);
      // Every change announced its event: 1 + 20 events, a delivery and a webhook each.
      expect(await one.outbox.forBooking(b.transactionId)).toHaveLength(42);
    }, 30_000);

    test("concurrent creates of one (requester, requesterResNo) on two instances leave exactly one booking", async () => {
      for (let round = 0; round < 5; round++) {
        const resNo = `SAME-${mode}-${round}-${process.pid}`;
        const ref = { requesterId: "REQ-CO", requesterResNo: resNo };
        const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).bookings.change(ref, create(newBooking({ requesterResNo: resNo })))));
        expect(new Set(ids).size).toBe(1);
        const [row] = await one.db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM bookings WHERE requester_id = 'REQ-CO' AND requester_res_no = ${resNo}`);
        expect(Number(row.n)).toBe(1);
        expect(await one.outbox.forBooking(ids[0])).toHaveLength(2);
      }
    }, 30_000);

    test("changes asked for together: one that fails rolls back alone, the others commit with their announcements", async () => {
      const made = Array.from({ length: 6 }, () => newBooking());
      const refuse = () => {
        throw new Error("refused");
      };
      const results = await Promise.allSettled(made.map((b, i) => one.bookings.change({ transactionId: b.transactionId }, i === 2 ? refuse : create(b))));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
      for (const [i, b] of made.entries()) {
        expect(await two.bookings.findById(b.transactionId)).toEqual(i === 2 ? undefined : b);
        expect(await two.outbox.forBooking(b.transactionId)).toHaveLength(i === 2 ? 0 : 2);
      }
      expect(one.bookings.pendingChanges).toBe(0);
    });

    test("new bookings asked for together: one the database refuses fails alone (with group commit its group runs again, a savepoint each), the others commit with their announcements", async () => {
      // A NUL byte is refused by PostgreSQL's text: the one statement of that new booking fails in the database.
      const made = Array.from({ length: 6 }, (_, i) => newBooking({ requesterResNo: i === 3 ? `BAD-\u0000-${mode}` : `TOGETHER-${mode}-${i}-${process.pid}` }));
      const results = await Promise.allSettled(made.map((b) => one.bookings.change({ requesterId: b.requesterId, requesterResNo: b.requesterResNo }, create(b))));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
      for (const [i, b] of made.entries()) {
        expect(await two.bookings.findById(b.transactionId)).toEqual(i === 3 ? undefined : b);
        expect(await two.outbox.forBooking(b.transactionId)).toHaveLength(i === 3 ? 0 : 2);
      }
      expect(one.bookings.pendingChanges).toBe(0);
    });

    test("new bookings asked for together, some under numbers already taken and one change by number among them: the new ones are made with their announcements, the others answer on the stored booking", async () => {
      const number = (i: number) => `MIXED-${mode}-${i}-${process.pid}`;
      const stored = [newBooking({ requesterResNo: number(1) }), newBooking({ requesterResNo: number(4) }), newBooking({ requesterResNo: number(6) })];
      for (const b of stored) await two.bookings.change({ requesterId: b.requesterId, requesterResNo: b.requesterResNo }, create(b));
      const asked = Array.from({ length: 7 }, (_, i) => newBooking({ requesterResNo: number(i) }));
      const results = await Promise.all(
        asked.map((b, i) => {
          const ref = { requesterId: b.requesterId, requesterResNo: b.requesterResNo };
          // Number 6: a change of the stored booking by its number, asked for with the new ones.
          return i === 6 ? one.bookings.change<string | number>(ref, appendLog("changed with the new ones", 1_870_000_100)) : one.bookings.change<string | number>(ref, create(b));
        }),
      );
      const takenBy = new Map(stored.map((b) => [b.requesterResNo, b]));
      for (const [i, b] of asked.entries()) {
        const before = takenBy.get(b.requesterResNo);
        if (i === 6) expect(results[i]).toBe(before!.changeLogs.length + 1);
        else expect(results[i]).toBe((before ?? b).transactionId);
        // Nothing of a NEW whose number was taken is written; each booking made announces its own two messages.
        expect(await two.bookings.findById(b.transactionId)).toEqual(before ? undefined : b);
        expect(await two.outbox.forBooking(b.transactionId)).toHaveLength(before ? 0 : 2);
      }
      // The stored ones: unchanged but the one changed by number, which announced its change too.
      expect(await two.outbox.forBooking(stored[0].transactionId)).toHaveLength(2);
      expect(await two.outbox.forBooking(stored[2].transactionId)).toHaveLength(4);
      expect(one.bookings.pendingChanges).toBe(0);
    });

    test("an Idempotency-Key reserved concurrently on two instances is reserved once", async () => {
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).idempotency.reserve("REQ-CO", `k-${mode}-${round}`, `h-${i}`, 1_890_000_000)));
        expect(results.filter((r) => r.kind === "reserved")).toHaveLength(1);
        // A dead reservation is taken over by exactly one of the instances.
        const takers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).idempotency.reserve("REQ-CO", `k-${mode}-${round}`, `t-${i}`, 1_890_000_000 + 121)));
        expect(takers.filter((r) => r.kind === "reserved")).toHaveLength(1);
      }
    });
  });
}

describe("offer deadlines on PostgreSQL, two instances on one database (docs/terms.md#the-acceptance-deadline-acceptby: one instance handles a lapse)", () => {
  test("concurrent claims of two instances never take one booking twice; a lease that ran out is due again", async () => {
    const [one, two] = instances.single;
    const deadlinesOne = new PgOfferDeadlines(one.db);
    const deadlinesTwo = new PgOfferDeadlines(two.db);
    const now = 1_870_000_000;
    // Earlier tests' bookings are not due; these 30 are.
    await one.db.execute(sql`UPDATE bookings SET offer_due = NULL`);
    const made = await bookingsDueAt([one, two], 30, now - 10);
    const ids = made.map((b) => b.transactionId);
    await one.db.execute(sql`UPDATE bookings SET offer_due = ${now - 5} WHERE transaction_id IN ${ids}`);
    const claimed: string[][] = [[], []];
    for (let pass = 0; pass < 30; pass++) {
      const got = await Promise.all([deadlinesOne.claimDue(now, 3, LEASE), deadlinesTwo.claimDue(now, 4, LEASE), deadlinesOne.claimDue(now, 2, LEASE), deadlinesTwo.claimDue(now, 5, LEASE)]);
      got.forEach((list, i) => claimed[i % 2].push(...list));
      if (got.every((list) => list.length === 0)) break;
    }
    const all = [...claimed[0], ...claimed[1]];
    expect(all.length).toBe(new Set(all).size);
    expect(new Set(all)).toEqual(new Set(ids));
    expect(claimed[0].length).toBeGreaterThan(0);
    expect(claimed[1].length).toBeGreaterThan(0);
    // Leased: neither instance takes them again before the lease ends; afterwards one of them does.
    expect(await deadlinesTwo.claimDue(now + LEASE - 1, 100, LEASE)).toEqual([]);
    const again = await Promise.all([deadlinesOne.claimDue(now + LEASE + 1, 100, LEASE), deadlinesTwo.claimDue(now + LEASE + 1, 100, LEASE)]);
    expect(again.flat().sort()).toEqual([...ids].sort());
  }, 60_000);
});
