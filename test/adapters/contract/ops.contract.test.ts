// The operational stores' contract — chauffeur positions, the audit log, retention and rate budgets — run unchanged
// against both adapters: SQLite (in memory) and PostgreSQL (a database of its own for the whole file). PostgreSQL
// that cannot start fails the file; it never skips.
import { describe, expect, test } from "bun:test";
import type { AuditEvent, CompanyRepository } from "../../../domain/ports";
import type { ChauffeurPosition } from "../../../domain/tracking/position";
import { takeToken, type Bucket, type RateBudgets, type RateDecision } from "../../../domain/rate-limit";
import { RETENTION } from "../../../domain/retention";
import { SqliteCompanyRepository } from "../../../adapters/sqlite/account-repositories";
import { SqlitePositionStore, TRAIL_LENGTH } from "../../../adapters/sqlite/position-store";
import { SqliteAuditLog } from "../../../adapters/sqlite/audit-log";
import { pruneExpired } from "../../../adapters/sqlite/retention";
import { LocalRateBudgets } from "../../../adapters/http/rate-limit";
import { PgCompanyRepository } from "../../../adapters/postgres/account-repositories";
import { PgPositionStore, TRAIL_LENGTH as PG_TRAIL_LENGTH } from "../../../adapters/postgres/position-store";
import { PgAuditLog } from "../../../adapters/postgres/audit-log";
import { prunePgExpired } from "../../../adapters/postgres/retention";
import { PgRateBudgets } from "../../../adapters/postgres/rate-budgets";
import { describeOnBoth, onPostgres, onSqlite } from "./databases";

/** What the tests need of a position store (either adapter; awaited, so a synchronous answer does too). */
interface Positions {
  last(transactionId: string): ChauffeurPosition | undefined | Promise<ChauffeurPosition | undefined>;
  trail(transactionId: string): ChauffeurPosition[] | Promise<ChauffeurPosition[]>;
  save(transactionId: string, position: ChauffeurPosition): void;
  flush(): void | Promise<void>;
  close(): void | Promise<void>;
}

interface AuditRowSeen {
  type: string;
  netid: string | null;
  at: number;
  detail: string | null;
}

interface Audit {
  record(event: AuditEvent, at: number): void;
  flush(): void | Promise<void>;
  query(filter: { type?: string; netid?: string; since?: number; limit: number }): AuditRowSeen[] | Promise<AuditRowSeen[]>;
}

interface Ops {
  companies: CompanyRepository;
  /** A position store as a freshly started instance has it (nothing in memory). */
  positions(onError?: (error: unknown) => void): Positions;
  audit(): Audit;
  prune(now: number): Promise<Record<string, number> | undefined>;
  budgets: RateBudgets;
  /** Runs a statement written with `?` placeholders; returns the rows. */
  run(statement: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>>;
}

const sqliteAdapter = onSqlite<Ops>((db) => ({
  companies: new SqliteCompanyRepository(db),
  positions: (onError) => new SqlitePositionStore(db, onError),
  audit: () => new SqliteAuditLog(db),
  prune: async (now) => pruneExpired(db.$client, now),
  budgets: new LocalRateBudgets(),
  run: async (statement, ...params) => db.$client.query(statement).all(...(params as never[])) as Array<Record<string, unknown>>,
}));

const postgresAdapter = onPostgres<Ops>(
  (db) => ({
    companies: new PgCompanyRepository(db),
    positions: (onError) => new PgPositionStore(db, onError),
    audit: () => new PgAuditLog(db),
    prune: (now) => prunePgExpired(db, now),
    budgets: new PgRateBudgets(db),
    run: async (statement, ...params) => {
      let n = 0;
      return [...(await db.$client.unsafe(statement.replace(/\?/g, () => `$${++n}`), params as never[]))];
    },
  }),
  10,
);

let serial = 0;
const T0 = 1_790_000_000_000;
const at = (i: number): ChauffeurPosition => ({ lat: 40 + i / 1000, lon: -73 - i / 1000, timestamp: new Date(T0 + i * 1000).toISOString(), receivedAt: T0 + i, chfName: `driver ${i}` });
/** How a trail shows a position: no chauffeur details. */
const inTrail = (p: ChauffeurPosition) => ({ lat: p.lat, lon: p.lon, timestamp: p.timestamp, receivedAt: p.receivedAt });
const DAY = 86400;

describeOnBoth("operational stores", [sqliteAdapter, postgresAdapter], (o) => {

  describe("chauffeur positions", () => {
    test("the last position is seen at once; after a restart it and a bounded trail are read back", async () => {
      expect(PG_TRAIL_LENGTH).toBe(TRAIL_LENGTH);
      const a = `booking-a-${++serial}`;
      const b = `booking-b-${serial}`;
      const first = o.positions();
      const n = TRAIL_LENGTH + 25;
      for (let i = 1; i <= n; i++) first.save(a, at(i));
      first.save(b, { lat: 1, lon: 2, timestamp: "2026-01-01T00:00:00Z", receivedAt: 5, chfId: "c1", chfName: "Ann", phoneNo: "+1", griddID: "g" });
      expect(await first.last(a)).toEqual(at(n));
      await first.close();

      const second = o.positions();
      expect(await second.last(a)).toEqual(at(n));
      expect(await second.last(b)).toEqual({ lat: 1, lon: 2, timestamp: "2026-01-01T00:00:00Z", receivedAt: 5, chfId: "c1", chfName: "Ann", phoneNo: "+1", griddID: "g" });
      expect(await second.last(`booking-c-${serial}`)).toBeUndefined();
      expect(await second.trail(`booking-c-${serial}`)).toEqual([]);
      const trail = await second.trail(a);
      expect(trail).toEqual(Array.from({ length: TRAIL_LENGTH }, (_, k) => inTrail(at(n - TRAIL_LENGTH + 1 + k))));
      // The trail keeps counting after a restart: the next position replaces the oldest.
      second.save(a, at(n + 1));
      const next = await second.trail(a);
      expect(next).toHaveLength(TRAIL_LENGTH);
      expect(next.at(-1)).toEqual(inTrail(at(n + 1)));
      expect(next[0]).toEqual(inTrail(at(n - TRAIL_LENGTH + 2)));
      const [{ rows }] = await o.run("SELECT count(*) AS rows FROM position_trail WHERE transaction_id = ?", a);
      expect(Number(rows)).toBe(TRAIL_LENGTH);
      await second.close();
    });

    test("positions saved in several flushes keep one trail in order, oldest first", async () => {
      const id = `booking-${++serial}`;
      const store = o.positions();
      for (let i = 1; i <= 10; i++) {
        store.save(id, at(i));
        if (i % 3 === 0) await store.flush();
      }
      expect(await store.trail(id)).toEqual(Array.from({ length: 10 }, (_, k) => inTrail(at(k + 1))));
      expect(await o.positions().last(id)).toEqual(at(10));
      await store.close();
    });

    test("positions wait in memory while the database refuses writes, and are written once it takes them again", async () => {
      const errors: unknown[] = [];
      const id = `booking-${++serial}`;
      const store = o.positions((e) => errors.push(e));
      await o.run("ALTER TABLE position_trail RENAME TO position_trail_away");
      try {
        store.save(id, at(1));
        await store.flush();
        expect(errors).toHaveLength(1);
        expect(await store.last(id)).toEqual(at(1));
      } finally {
        await o.run("ALTER TABLE position_trail_away RENAME TO position_trail");
      }
      await store.flush();
      expect(await o.run("SELECT lat FROM chauffeur_positions WHERE transaction_id = ?", id)).toEqual([{ lat: at(1).lat }]);
      await store.close();
    });
  });

  describe("audit log", () => {
    test("events are written with their fields; query filters by type, company and time, newest first, limited", async () => {
      const netid = `Audit-${++serial}`;
      const log = o.audit();
      log.record({ type: "company.registered", netid, uid: netid, address: "10.0.0.1", detail: "first" }, 1_000);
      log.record({ type: "login.succeeded", netid, uid: netid }, 1_010);
      log.record({ type: "company.registered", netid: `${netid}-other` }, 1_020);
      log.record({ type: "token.released", netid }, 1_030);
      await log.flush();
      const mine = await log.query({ netid, limit: 10 });
      expect(mine.map((r) => r.type)).toEqual(["token.released", "login.succeeded", "company.registered"]);
      expect(mine[2]).toMatchObject({ at: 1_000, type: "company.registered", netid, uid: netid, address: "10.0.0.1", detail: "first" });
      expect((await log.query({ netid, since: 1_010, limit: 10 })).map((r) => r.at)).toEqual([1_030, 1_010]);
      expect((await log.query({ netid, type: "company.registered", limit: 10 })).map((r) => r.detail)).toEqual(["first"]);
      expect(await log.query({ netid, limit: 2 })).toHaveLength(2);
      // A fresh log (another instance) reads what this one wrote.
      expect((await o.audit().query({ type: "company.registered", since: 1_000, limit: 10 })).map((r) => r.netid).slice(0, 2)).toEqual([`${netid}-other`, netid]);
    });

    test("a flood of bad credentials is held and written as one row with a count; other events go out without a flush", async () => {
      const address = `10.1.0.${++serial}`;
      const log = o.audit();
      for (let i = 0; i < 500; i++) log.record({ type: "access.denied", address, detail: "bad token" }, 2_000);
      log.record({ type: "company.registered", netid: `Direct-${serial}` }, 2_001);
      const rows = async () => o.run("SELECT type, detail FROM audit_events WHERE address = ? OR netid = ? ORDER BY id", address, `Direct-${serial}`);
      const recorded = performance.now();
      // The registration is written by itself, soon; the denials once their window closes, merged.
      let seen = await rows();
      for (let i = 0; i < 300 && seen.length < 2; i++) {
        // Within the window, what is written is the registration alone.
        if (seen.length === 1 && performance.now() - recorded < 150) expect(seen).toEqual([{ type: "company.registered", detail: null }]);
        await Bun.sleep(10);
        seen = await rows();
      }
      expect(seen).toEqual([
        { type: "company.registered", detail: null },
        { type: "access.denied", detail: "bad token (×500)" },
      ]);
    });

    test("beyond 1000 distinct held events the rest are counted in one audit.dropped row", async () => {
      const log = o.audit();
      const tag = `flood-${++serial}`;
      for (let i = 0; i < 1_005; i++) log.record({ type: "login.failed", uid: `${tag}-${i}` }, 3_000);
      await log.flush();
      const [{ n }] = await o.run("SELECT count(*) AS n FROM audit_events WHERE uid LIKE ?", `${tag}-%`);
      expect(Number(n)).toBe(1_000);
      const dropped = await log.query({ type: "audit.dropped", limit: 1 });
      expect(dropped[0]).toMatchObject({ at: 3_000, detail: "5 events beyond 1000 distinct ones in 200 ms not recorded" });
    });
  });

  describe("retention", () => {
    test("prunes delivered outbox rows, old audit rows, released tokens, old login failures and idempotency keys; keeps the rest", async () => {
      const netid = `Keep-${++serial}`;
      await o.companies.createWithFirstUser(
        { netid, name: netid, coType: "CO", plan: "FREE", mainEmail: `${netid}@example.com`, mainPhone: `+4930${String(serial).padStart(7, "0")}`, address: null, notes: null, createdAt: 1 },
        { uid: netid, netid, email: `${netid}@example.com`, passwordHash: "h", createdAt: 1 },
      );
      const now = 1_800_000_000;
      // What the other tests left (audit rows of long ago, among others) goes in a first run.
      await o.prune(now);
      const outbox = (eventId: string, status: string, deliveredAt: number | null) =>
        o.run(
          "INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at, delivered_at) VALUES (?, 'webhook', 'booking.updated', 'tx', ?, 'https://x.example', '{}', ?, 1, 0, 0, ?)",
          eventId,
          netid,
          status,
          deliveredAt,
        );
      await outbox(`${netid}-old-delivered`, "delivered", now - 8 * DAY);
      await outbox(`${netid}-new-delivered`, "delivered", now - 1 * DAY);
      await outbox(`${netid}-old-failed`, "failed", null);
      await outbox(`${netid}-old-pending`, "pending", null);
      await o.run("INSERT INTO audit_events (at, type, detail) VALUES (?, 'access.denied', 'old'), (?, 'access.denied', 'new')", now - 91 * DAY, now - 1 * DAY);
      const token = (hash: string, releasedAt: number | null) => o.run("INSERT INTO platform_tokens (token_hash, uid, created_at, released_at) VALUES (?, ?, 0, ?)", `${netid}-${hash}`, netid, releasedAt);
      await token("released-long-ago", now - 2 * DAY);
      await token("released-just-now", now - 60);
      await token("still-active", null);
      await o.run("INSERT INTO revoked_tokens (token_id, expires_at) VALUES (?, ?), (?, ?)", `${netid}-expired`, now - 3600, `${netid}-valid`, now + 600);
      await o.run("INSERT INTO login_failures (key, at) VALUES ('uid:x', ?), ('uid:x', ?)", now - 2 * 3600, now - 60);
      await o.run("INSERT INTO idempotency_keys (netid, key, request_hash, status, body, created_at) VALUES (?, 'old', 'h', 200, '{}', ?), (?, 'new', 'h', 200, '{}', ?)", netid, now - 2 * DAY, netid, now - 60);

      const deleted = await o.prune(now);
      expect(deleted).toMatchObject({ outbox_messages: 1, audit_events: 1, platform_tokens: 1, revoked_tokens: 1, login_failures: 1, idempotency_keys: 1 });
      const col = async (statement: string, ...params: unknown[]) => (await o.run(statement, ...params)).map((r) => r.v);
      expect(await col("SELECT token_id AS v FROM revoked_tokens WHERE token_id LIKE ?", `${netid}-%`)).toEqual([`${netid}-valid`]);
      expect(await col("SELECT event_id AS v FROM outbox_messages WHERE target_netid = ? ORDER BY v", netid)).toEqual([`${netid}-new-delivered`, `${netid}-old-failed`, `${netid}-old-pending`]);
      expect(await col("SELECT detail AS v FROM audit_events WHERE detail IN ('old', 'new')")).toEqual(["new"]);
      expect(await col("SELECT token_hash AS v FROM platform_tokens WHERE uid = ? ORDER BY v", netid)).toEqual([`${netid}-released-just-now`, `${netid}-still-active`]);
      expect(await col("SELECT key AS v FROM idempotency_keys WHERE netid = ?", netid)).toEqual(["new"]);
      // A second run finds nothing more.
      expect(Object.values((await o.prune(now))!).every((n) => n === 0)).toBe(true);
    });

    test("keeps a cost recovery 400 days past its pickup and an ended dispute 400 days past its answer; an open dispute stays", async () => {
      const tag = `Settle-${++serial}`;
      const now = 1_800_000_000;
      await o.prune(now);
      const recovery = (id: string, pickupDate: number) =>
        o.run(
          "INSERT INTO cost_recoveries (transaction_id, requester_id, provider_id, amount_minor, currency, percent, pickup_date, recorded_at) VALUES (?, 'R', 'P', 7500, 'USD', 50, ?, ?)",
          `${tag}-${id}`, pickupDate, pickupDate - DAY,
        );
      await recovery("old", now - 401 * DAY);
      await recovery("new", now - 399 * DAY);
      const dispute = (id: string, state: string, raisedAt: number, answeredAt: number | null) =>
        o.run(
          "INSERT INTO statement_disputes (id, transaction_id, requester_id, provider_id, period, raised_by, reason, raised_at, state, answer, answered_at) " +
            "VALUES (?, ?, 'R', 'P', '2025-01', 'R', 'Too much', ?, ?, ?, ?)",
          `${tag}-${id}`, `${tag}-${id}`, raisedAt, state, answeredAt === null ? null : "It stands", answeredAt,
        );
      await dispute("old-answered", "ANSWERED", now - 500 * DAY, now - 401 * DAY);
      await dispute("old-accepted", "ACCEPTED", now - 500 * DAY, now - 402 * DAY);
      await dispute("new-answered", "ANSWERED", now - 500 * DAY, now - 399 * DAY);
      await dispute("old-open", "OPEN", now - 500 * DAY, null);

      expect(await o.prune(now)).toMatchObject({ cost_recoveries: 1, statement_disputes: 2 });
      const col = async (statement: string) => (await o.run(statement, `${tag}-%`)).map((r) => r.v);
      expect(await col("SELECT transaction_id AS v FROM cost_recoveries WHERE transaction_id LIKE ?")).toEqual([`${tag}-new`]);
      expect(await col("SELECT id AS v FROM statement_disputes WHERE id LIKE ? ORDER BY id")).toEqual([`${tag}-new-answered`, `${tag}-old-open`]);
      expect(RETENTION.settlementRecords).toBe(400 * DAY);
    });
  });

  describe("rate budgets", () => {
    const ask = (budgets: RateBudgets, key: string, capacity: number, period: number, now: number) => Promise.resolve(budgets.take(key, capacity, period, now));

    test("answers exactly as the token bucket of domain/rate-limit.ts, refusals taking no token", async () => {
      const key = `search:${++serial}`;
      let bucket: Bucket | undefined;
      const steps: Array<[number, number, number]> = [];
      // Bursts, refusals, partial and full refills, with fractional times; two budgets sizes on one key.
      for (let i = 0; i < 8; i++) steps.push([5, 60, 1_000]);
      for (const t of [1_005, 1_011.5, 1_012, 1_030.25, 1_030.25, 1_030.25, 1_200, 1_200.5]) steps.push([5, 60, t]);
      for (let i = 0; i < 4; i++) steps.push([3, 3600, 1_300 + i]);
      for (const [capacity, period, now] of steps) {
        const expected: RateDecision = takeToken(bucket, capacity, period, now).decision;
        bucket = takeToken(bucket, capacity, period, now).bucket;
        expect(await ask(o.budgets, key, capacity, period, now)).toEqual(expected);
      }
    });

    test("keys are independent", async () => {
      const a = `writes:a-${++serial}`;
      const b = `writes:b-${serial}`;
      expect((await ask(o.budgets, a, 1, 60, 500)).allowed).toBe(true);
      expect((await ask(o.budgets, a, 1, 60, 500)).allowed).toBe(false);
      expect(await ask(o.budgets, b, 1, 60, 500)).toEqual({ allowed: true, limit: 1, remaining: 0, retryAfter: 0, reset: 60 });
    });
  });
});
