// The operational stores with several instances on one PostgreSQL database: each instance has its own pool, as
// separate processes would. One database of its own for the whole file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startDatabase, type TestDatabase } from "../../support/pg-databases";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgRateBudgets } from "../../../adapters/postgres/rate-budgets";
import { prunePgExpired, RETENTION_LOCK_KEY } from "../../../adapters/postgres/retention";
import { PgPositionStore, TRAIL_LENGTH } from "../../../adapters/postgres/position-store";
import { LOGIN_ATTEMPT_LEASE_S, PgLoginThrottle } from "../../../adapters/postgres/account-repositories";
import { Elysia } from "elysia";
import { RateLimiter, writeRateLimit } from "../../../adapters/http/rate-limit";
import { edge } from "../../../adapters/http/edge";
import { createLogger } from "../../../adapters/logging";
import type { ChauffeurPosition } from "../../../domain/tracking/position";

let cluster: TestDatabase;
let one: PgDb;
let two: PgDb;
beforeAll(async () => {
  cluster = await startDatabase();
  one = openPostgres(cluster.url, { max: 10 });
  two = openPostgres(cluster.url, { max: 10 });
  await migrate(one.$client);
}, 120_000);
afterAll(async () => {
  await one?.$client.close();
  await two?.$client.close();
  await cluster?.stop();
}, 60_000);

const count = async (db: PgDb, query: string, params: unknown[] = []) => Number((await db.$client.unsafe(query, params))[0].n);
const position = (i: number): ChauffeurPosition => ({ lat: i, lon: -i, timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString(), receivedAt: 1_790_000_000_000 + i });

describe("shared rate budgets", () => {
  test("two instances, 2 × capacity concurrent takes on one key: exactly capacity admitted", async () => {
    const budgets = [new PgRateBudgets(one), new PgRateBudgets(two)];
    const capacity = 25;
    const decisions = await Promise.all(Array.from({ length: 2 * capacity }, (_, i) => budgets[i % 2]!.take("search:shared", capacity, 60, 5_000)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(capacity);
    // Each admitted request saw the ones before it: every remaining count from capacity − 1 down to 0 once.
    expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: capacity }, (_, i) => i));
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfter >= 1 && d.remaining === 0)).toBe(true);
    // A second later, one token has come back (25 a minute), on either instance.
    expect((await budgets[1]!.take("search:shared", capacity, 60, 5_003)).allowed).toBe(true);
    expect((await budgets[0]!.take("search:shared", capacity, 60, 5_003)).allowed).toBe(false);
  });

  test("a RateLimiter on shared budgets answers through a Promise and refuses with 429 across instances", async () => {
    const limiters = [one, two].map((db) => new RateLimiter({ searchPerMinute: 2, sendTripPerMinute: 0 }, () => 9_000, new PgRateBudgets(db)));
    expect(limiters.every((l) => !l.synchronous)).toBe(true);
    const headers: Record<string, string | number> = {};
    await limiters[0]!.check("searchPerMinute", "ACME", headers);
    await limiters[1]!.check("searchPerMinute", "ACME", headers);
    expect(headers["ratelimit-remaining"]).toBe("0");
    await expect(limiters[0]!.check("searchPerMinute", "ACME", headers) as Promise<void>).rejects.toMatchObject({ code: "RATE_LIMITED" });
    // A disabled limit spends nothing and answers synchronously.
    expect(limiters[0]!.check("sendTripPerMinute", "ACME", headers)).toBeUndefined();
  });


  test("the write budget on shared budgets: a refused write is 429 before its route runs, whichever instance takes it", async () => {
    let ran = 0;
    const apps = [one, two].map((db) => {
      const limiter = new RateLimiter({ searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 2 }, () => 12_000, new PgRateBudgets(db));
      return new Elysia()
        .use(edge({ maxBodyBytes: 1000, logger: createLogger("silent") }))
        .use(writeRateLimit(limiter, () => "10.9.9.9", async () => undefined))
        .post("/api/things", () => ({ ran: ++ran }));
    });
    const post = (i: number) => apps[i % 2]!.handle(new Request("http://localhost/api/things", { method: "POST", headers: { authorization: "Bearer shared-writes" } }));
    const answers = await Promise.all([0, 1, 2, 3].map(post));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 429, 429]);
    expect(ran).toBe(2);
    const refused = answers.find((r) => r.status === 429)!;
    expect(await refused.json()).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
  });
});

describe("retention on several instances", () => {
  test("runs on one instance at a time: while one holds the lock, the other skips its run", async () => {
    const now = 1_800_000_000;
    await one.$client`INSERT INTO audit_events (at, type, detail) VALUES (${now - 100 * 86400}, 'access.denied', 'held'), (${now - 100 * 86400}, 'access.denied', 'old')`;
    // An operator's transaction holds one expired row: the first instance's delete waits on it, holding the lock.
    const blocker = await two.$client.reserve();
    await blocker`BEGIN`;
    await blocker`SELECT id FROM audit_events WHERE detail = 'held' FOR UPDATE`;
    const first = prunePgExpired(one, now);
    let held = false;
    for (let i = 0; i < 200 && !held; i++) {
      held = (await count(two, "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1", [Number(RETENTION_LOCK_KEY & 0xffffffffn)])) > 0;
      if (!held) await Bun.sleep(10);
    }
    expect(held).toBe(true);
    expect(await prunePgExpired(two, now)).toBeUndefined();
    await blocker`COMMIT`;
    blocker.release();
    expect((await first)?.audit_events).toBe(2);
    // The lock is released: the next run (on either instance) does its work.
    expect(await prunePgExpired(two, now)).toMatchObject({ audit_events: 0 });
  });

  test("two instances at once: every expired row is deleted, exactly once", async () => {
    const now = 1_800_000_000;
    await one.$client`INSERT INTO audit_events (at, type, detail) SELECT ${now - 100 * 86400}, 'access.denied', 'bulk' FROM generate_series(1, 12000)`;
    const results = await Promise.all([prunePgExpired(one, now), prunePgExpired(two, now)]);
    expect(results.reduce((sum, r) => sum + (r?.audit_events ?? 0), 0)).toBe(12_000);
    expect(await count(one, "SELECT count(*) AS n FROM audit_events WHERE detail = 'bulk'")).toBe(0);
  });

  test("prunes idle rate buckets, login attempts past their lease and fleet changes beyond the log window", async () => {
    const now = 1_800_000_000;
    await one.$client`INSERT INTO rate_buckets (key, tokens, at) VALUES ('idle', 1, ${now - 3601}), ('recent', 1, ${now - 60})`;
    await one.$client`INSERT INTO login_attempts (key, started_at) VALUES ('uid:dead', ${now - 61}), ('uid:live', ${now - 5})`;
    await one.$client`UPDATE fleet_generation SET n = 60000 WHERE id = 1`;
    await one.$client`INSERT INTO fleet_changes (n, slug) VALUES (9999, 'old'), (10000, 'edge'), (10001, 'kept'), (59000, 'new')`;
    const deleted = await prunePgExpired(one, now);
    expect(deleted).toMatchObject({ rate_buckets: 1, login_attempts: 1, fleet_changes: 1 });
    expect((await one.$client`SELECT key FROM rate_buckets WHERE key IN ('idle', 'recent')`).map((r: { key: string }) => r.key)).toEqual(["recent"]);
    expect((await one.$client`SELECT key FROM login_attempts`).map((r: { key: string }) => r.key)).toEqual(["uid:live"]);
    expect((await one.$client`SELECT slug FROM fleet_changes ORDER BY n`).map((r: { slug: string }) => r.slug)).toEqual(["edge", "kept", "new"]);
  });
});

describe("chauffeur positions on several instances", () => {
  test("positions of one booking pushed to two instances share one numbered trail", async () => {
    const stores = [new PgPositionStore(one), new PgPositionStore(two)];
    for (let i = 1; i <= TRAIL_LENGTH + 10; i++) {
      stores[i % 2]!.save("shared-booking", position(i));
      // Both instances write at once now and then.
      if (i % 7 === 0) await Promise.all(stores.map((s) => s.flush()));
    }
    await Promise.all(stores.map((s) => s.close()));
    const seqs = (await one.$client`SELECT seq FROM position_trail WHERE transaction_id = 'shared-booking' ORDER BY seq`).map((r: { seq: string }) => Number(r.seq));
    expect(seqs).toEqual(Array.from({ length: TRAIL_LENGTH }, (_, k) => k + 11));
    expect(Number((await one.$client`SELECT seq FROM chauffeur_positions WHERE transaction_id = 'shared-booking'`)[0].seq)).toBe(TRAIL_LENGTH + 10);
    // Either instance reads the same trail.
    const [a, b] = await Promise.all(stores.map((s) => s.trail("shared-booking")));
    expect(a).toEqual(b!);
    expect(a).toHaveLength(TRAIL_LENGTH);
  });

  test("lastSync answers from the latest prefetch, and this instance's unwritten position before it", async () => {
    const writer = new PgPositionStore(two);
    writer.save("prefetched", position(1));
    await writer.close();
    const reader = new PgPositionStore(one);
    expect(reader.lastSync("prefetched")).toBeUndefined();
    await reader.prefetch(["prefetched", "never-pushed"]);
    expect(reader.lastSync("prefetched")).toEqual(position(1));
    expect(reader.lastSync("never-pushed")).toBeUndefined();
    // Another instance's newer position is seen at the next prefetch, not before.
    const again = new PgPositionStore(two);
    again.save("prefetched", position(2));
    await again.close();
    expect(reader.lastSync("prefetched")).toEqual(position(1));
    await reader.prefetch(["prefetched"]);
    expect(reader.lastSync("prefetched")).toEqual(position(2));
    reader.save("prefetched", position(3));
    expect(reader.lastSync("prefetched")).toEqual(position(3));
    expect(await reader.last("prefetched")).toEqual(position(3));
    await reader.close();
  });
});

describe("login attempts in flight", () => {
  test("an attempt older than the lease (its instance died) no longer counts; one within it does", async () => {
    const throttle = new PgLoginThrottle(one);
    await one.$client`INSERT INTO login_attempts (key, started_at) VALUES
      ('uid:crashed', extract(epoch from clock_timestamp()) - ${LOGIN_ATTEMPT_LEASE_S + 1}),
      ('uid:crashed', extract(epoch from clock_timestamp()) - 5)`;
    expect((await throttle.begin(["uid:crashed"], 0, () => false)).seen).toEqual([{ failures: [], pending: 1 }]);
  });
});
