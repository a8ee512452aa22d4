// The per-instance account cache on PostgreSQL: two pools stand for two instances, each with its repositories on
// its own watched PgAccountCache. A change through one is seen by it at once and by the other within a second;
// a change by an outside writer (psql) too; the LISTEN connection lost and back empties the cache; a read in
// flight while the cache is emptied is not kept.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { migrate, openPostgres, type PgDb } from "../../../adapters/postgres/db";
import { PgAccountCache, ACCOUNT_POLL_MS } from "../../../adapters/postgres/account-cache";
import { PgCompanyRepository, PgPlatformTokenRepository, PgRevokedTokens, PgUserRepository } from "../../../adapters/postgres/account-repositories";
import { PgIntegrationRepository } from "../../../adapters/postgres/integration-repository";
import { PgPartnershipRepository } from "../../../adapters/postgres/partnership-repository";
import { SecretBox } from "../../../adapters/security/secrets";
import type { Integration } from "../../../domain/delivery/integration";
import { startCluster, type PgCluster } from "../../../scripts/pg-cluster";

let pg: PgCluster;
const pools: PgDb[] = [];
const watches: Array<{ stop(): Promise<void> }> = [];
const errors: unknown[] = [];

function instance(db: PgDb) {
  const cache = new PgAccountCache();
  watches.push(cache.watch(db, (e) => errors.push(e), ACCOUNT_POLL_MS));
  const secrets = new SecretBox(SecretBox.newKey());
  return {
    db,
    cache,
    companies: new PgCompanyRepository(db, cache),
    users: new PgUserRepository(db, cache),
    tokens: new PgPlatformTokenRepository(db, cache),
    revoked: new PgRevokedTokens(db, cache),
    integrations: new PgIntegrationRepository(db, secrets, cache),
    partnerships: new PgPartnershipRepository(db, cache),
  };
}
type Instance = ReturnType<typeof instance>;
let a: Instance;
let b: Instance;

/** Polls `probe` until it gives `want` (bounded: 1 s and 200 tries); the time it took. */
async function within<T>(probe: () => Promise<T> | T, want: T, ms = 1000): Promise<number> {
  const t0 = performance.now();
  let last: T | undefined;
  for (let i = 0; i < 200; i++) {
    last = await probe();
    if (JSON.stringify(last) === JSON.stringify(want)) return performance.now() - t0;
    if (performance.now() - t0 > ms) break;
    await Bun.sleep(5);
  }
  throw new Error(`still ${JSON.stringify(last)} after ${ms} ms, wanted ${JSON.stringify(want)}`);
}

async function company(netid: string) {
  await a.companies.createWithFirstUser(
    { netid, name: `${netid} Co`, coType: "CO", plan: "FREE", mainEmail: `${netid.toLowerCase()}@example.com`, mainPhone: `+49${Bun.hash(netid) % 1_000_000_000n}`, address: null, notes: null, createdAt: 1 },
    { uid: netid, netid, email: `${netid.toLowerCase()}@example.com`, passwordHash: "x", createdAt: 1 },
  );
}

beforeAll(async () => {
  pg = await startCluster();
  pools.push(openPostgres(pg.url, { max: 4 }), openPostgres(pg.url, { max: 4 }));
  await migrate(pools[0].$client);
  a = instance(pools[0]);
  b = instance(pools[1]);
  // Both subscriptions acknowledged (each empties its cache once).
  await within(() => a.cache.clears > 0 && b.cache.clears > 0, true, 5000);
}, 120_000);

afterAll(async () => {
  for (const w of watches) await w.stop();
  for (const p of pools) await p.$client.close();
  await pg?.stop();
}, 60_000);

describe("account cache across two instances of one PostgreSQL", () => {
  test("a plan change: at once on the instance that made it, within a second on the other", async () => {
    await company("PLANCO");
    expect((await a.users.findCaller("planco"))?.plan).toBe("FREE");
    expect((await b.users.findCaller("PLANCO"))?.plan).toBe("FREE");
    // B holds it (once the notification of the company's creation no longer empties the cache under the read).
    await within(async () => (await b.users.findCaller("PLANCO"))?.plan === "FREE" && b.cache.callers.has("planco"), true);
    expect(await a.companies.setPlan("PLANCO", "ENTERPRISE")).toBe(true);
    expect((await a.users.findCaller("planco"))?.plan).toBe("ENTERPRISE");
    expect((await a.companies.findByNetid("planco"))?.plan).toBe("ENTERPRISE");
    expect(await within(async () => (await b.users.findCaller("planco"))?.plan, "ENTERPRISE")).toBeLessThan(1000);
    expect((await b.companies.findByNetid("PLANCO"))?.plan).toBe("ENTERPRISE");
  });

  test("a removed user and a released platform token: at once here, within a second there", async () => {
    await company("GONECO");
    await a.tokens.save("hash-gone", "GONECO", 1);
    await company("RELCO");
    await a.tokens.save("hash-rel", "RELCO", 1);
    for (const x of [a, b]) {
      expect(await x.tokens.findActiveUid("hash-rel")).toBe("RELCO");
      expect(await x.users.findCaller("goneco")).toBeDefined();
    }
    expect(await a.tokens.release("hash-rel", 2)).toBe(true);
    expect(await a.tokens.findActiveUid("hash-rel")).toBeUndefined();
    expect(await within(() => b.tokens.findActiveUid("hash-rel"), undefined)).toBeLessThan(1000);
    expect(await b.users.remove("GONECO")).toBe(true);
    expect(await b.users.findCaller("goneco")).toBeUndefined();
    expect(await within(() => a.users.findCaller("goneco"), undefined)).toBeLessThan(1000);
  });

  test("a revoked core token: at once here, within a second there", async () => {
    for (const x of [a, b]) expect(await x.revoked.isRevoked("jti-1")).toBe(false);
    await within(async () => !(await b.revoked.isRevoked("jti-1")) && b.cache.notRevoked.has("jti-1"), true);
    await a.revoked.revoke("jti-1", Math.floor(Date.now() / 1000) + 3600);
    expect(await a.revoked.isRevoked("jti-1")).toBe(true);
    expect(await within(() => b.revoked.isRevoked("jti-1"), true)).toBeLessThan(1000);
  });

  test("a changed integration and a changed partners' map: at once here, within a second there (get and the announcer's prefetched lookups)", async () => {
    await company("INTCO");
    await company("MAPREQ");
    const integration = (acceptTripsFrom: "anyone" | "partners"): Integration => ({
      netid: "INTCO",
      deliveryUrl: null,
      deliveryAuth: null,
      luggage: "notes",
      webhookUrl: null,
      webhookSecret: null,
      webhookVerifiedAt: null,
      webhookFormat: "events",
      acceptTripsFrom,
    });
    for (const x of [a, b]) {
      expect(await x.integrations.get("INTCO")).toBeUndefined();
      await x.integrations.prefetch(["INTCO"]);
      expect(x.integrations.getSync("INTCO")).toBeUndefined();
    }
    await a.integrations.save(integration("partners"), 10);
    expect((await a.integrations.get("INTCO"))?.acceptTripsFrom).toBe("partners");
    await a.integrations.prefetch(["INTCO"]);
    expect(a.integrations.getSync("INTCO")?.acceptTripsFrom).toBe("partners");
    expect(await within(async () => (await b.integrations.get("INTCO"))?.acceptTripsFrom, "partners")).toBeLessThan(1000);
    await b.integrations.prefetch(["INTCO"]);
    expect(b.integrations.getSync("INTCO")?.acceptTripsFrom).toBe("partners");

    // The map a provider set for a requester, as the announcer reads it (only between active partners).
    await a.partnerships.create("INTCO", "MAPREQ", 1);
    await a.partnerships.activate("INTCO", "MAPREQ", 2);
    for (const x of [a, b]) {
      await x.partnerships.prefetch([["INTCO", "MAPREQ"]]);
      expect(x.partnerships.activeVehicleTypesSync("INTCO", "MAPREQ")).toEqual({});
    }
    await b.partnerships.setVehicleTypes("INTCO", "MAPREQ", { SEDAN: "EXEC" });
    await b.partnerships.prefetch([["INTCO", "MAPREQ"]]);
    expect(b.partnerships.activeVehicleTypesSync("INTCO", "MAPREQ")).toEqual({ SEDAN: "EXEC" });
    const mapOnA = async () => {
      await a.partnerships.prefetch([["INTCO", "MAPREQ"]]);
      return a.partnerships.activeVehicleTypesSync("INTCO", "MAPREQ");
    };
    expect(await within(mapOnA, { SEDAN: "EXEC" })).toBeLessThan(1000);
  });

  test("a change by an outside writer (psql, the CLI) reaches both instances within a second", async () => {
    await company("PSQLCO");
    for (const x of [a, b]) expect((await x.users.findCaller("psqlco"))?.plan).toBe("FREE");
    const outside = openPostgres(pg.url, { max: 1 });
    try {
      await outside.$client.unsafe("UPDATE companies SET plan = 'PROFESSIONAL' WHERE netid = 'PSQLCO'");
    } finally {
      await outside.$client.close();
    }
    for (const x of [a, b]) expect(await within(async () => (await x.users.findCaller("psqlco"))?.plan, "PROFESSIONAL")).toBeLessThan(1000);
  });

  test("the LISTEN connection lost and back: the cache is emptied (what was missed cannot be known)", async () => {
    await company("LOSTCO");
    // Kept once no notification (of the company's own creation) empties the cache while it is read.
    const kept = async () => (await a.users.findCaller("lostco"))?.plan === "FREE" && a.cache.callers.has("lostco");
    await within(kept, true);
    const before = a.cache.clears;
    // Every LISTEN connection of the cluster is cut (both instances'); Bun reconnects and subscribes again.
    const cut = await pools[0].$client.unsafe<Array<{ ok: boolean }>>("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()");
    expect(cut.length).toBeGreaterThan(0);
    await within(() => a.cache.clears > before, true, 5000);
    expect(a.cache.callers.has("lostco")).toBe(false);
  });

  test("a read in flight while the cache is emptied is not kept (it may predate the change)", () => {
    const cache = new PgAccountCache();
    const ticket = cache.ticket();
    cache.clear();
    cache.remember(ticket, cache.callers, "x", { uid: "x", netid: "X", plan: "FREE" });
    cache.rememberNotRevoked(ticket, "jti");
    expect(cache.callers.size).toBe(0);
    expect(cache.notRevoked.size).toBe(0);
    const fresh = cache.ticket();
    cache.remember(fresh, cache.callers, "x", { uid: "x", netid: "X", plan: "FREE" });
    expect(cache.callers.size).toBe(1);
    // A cache nothing keeps in step never keeps anything.
    const none = PgAccountCache.none();
    none.remember(none.ticket(), none.callers, "x", { uid: "x", netid: "X", plan: "FREE" });
    expect(none.callers.size).toBe(0);
  });
});
