// The account repositories' contract, run unchanged against both adapters: SQLite (in memory) and PostgreSQL (a
// throwaway cluster for the whole file). PostgreSQL that cannot start fails the file; it never skips.
import { describe, expect, test } from "bun:test";
import { ConflictError } from "../../../domain/errors";
import type { Company } from "../../../domain/company/registration";
import type { CompanyRepository, LoginAttemptsSeen, LoginThrottle, PlatformTokenRepository, RevokedTokens, User, UserRepository } from "../../../domain/ports";
import { SqliteCompanyRepository, SqliteLoginThrottle, SqlitePlatformTokenRepository, SqliteRevokedTokens, SqliteUserRepository } from "../../../adapters/sqlite/account-repositories";
import { PgCompanyRepository, PgLoginThrottle, PgPlatformTokenRepository, PgRevokedTokens, PgUserRepository } from "../../../adapters/postgres/account-repositories";
import { describeOnBoth, onPostgres, onSqlite } from "./databases";

interface Accounts {
  companies: CompanyRepository;
  users: UserRepository;
  tokens: PlatformTokenRepository;
  throttle: LoginThrottle;
  /** A second throttle on the same database (another connection, or another instance on PostgreSQL). */
  otherThrottle: LoginThrottle;
  /**
   * The throttles of two instances serving one database: on PostgreSQL two pools, as two processes would have;
   * on SQLite one process serves the file, so both are that process's throttle.
   */
  instances: [LoginThrottle, LoginThrottle];
  /** Revocations as two instances see them (on SQLite, one process's). */
  revoked: [RevokedTokens, RevokedTokens];
}

const sqliteAdapter = onSqlite<Accounts>((db) => {
  const throttle = new SqliteLoginThrottle(db);
  return {
    companies: new SqliteCompanyRepository(db),
    users: new SqliteUserRepository(db),
    tokens: new SqlitePlatformTokenRepository(db),
    throttle,
    otherThrottle: new SqliteLoginThrottle(db),
    instances: [throttle, throttle],
    revoked: [new SqliteRevokedTokens(db), new SqliteRevokedTokens(db)],
  };
});

const postgresAdapter = onPostgres<Accounts>((db, { pool }) => {
  const throttle = new PgLoginThrottle(db);
  const otherThrottle = new PgLoginThrottle(pool(4));
  return {
    companies: new PgCompanyRepository(db),
    users: new PgUserRepository(db),
    tokens: new PgPlatformTokenRepository(db),
    throttle,
    otherThrottle,
    instances: [throttle, otherThrottle],
    revoked: [new PgRevokedTokens(db), new PgRevokedTokens(pool(2))],
  };
}, 10);

let serial = 0;
/** A company and its first user with names no other test uses (the database is shared by the file's tests). */
function fresh(overrides: Partial<Company> = {}): { company: Company; user: User } {
  const n = ++serial;
  const company: Company = {
    netid: `Co-${n}`,
    name: `Company ${n}`,
    coType: "CO",
    plan: "FREE",
    mainEmail: `office${n}@example.com`,
    mainPhone: `+4930${String(n).padStart(7, "0")}`,
    address: null,
    notes: null,
    createdAt: 1_700_000_000 + n,
    ...overrides,
  };
  const user: User = { uid: company.netid, netid: company.netid, email: company.mainEmail, passwordHash: `hash-${n}`, createdAt: company.createdAt };
  return { company, user };
}

async function conflictOf(promise: Promise<unknown>): Promise<ConflictError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ConflictError);
    return error as ConflictError;
  }
  throw new Error("expected a ConflictError");
}

/** Admits while each key has fewer than `limit` failures plus attempts in flight. */
const under = (limit: number) => (seen: LoginAttemptsSeen[]) => seen.every((s) => s.failures.length + s.pending < limit);

describeOnBoth("account repositories", [sqliteAdapter, postgresAdapter], (a) => {

  describe("companies", () => {
    test("createWithFirstUser stores both; findByNetid is case-insensitive and returns every field", async () => {
      const { company, user } = fresh({ address: "Hauptstr. 1", notes: "note", coType: "IO" });
      await a.companies.createWithFirstUser(company, user);
      expect(await a.companies.findByNetid(company.netid.toUpperCase())).toEqual(company);
      expect(await a.companies.findByNetid(company.netid.toLowerCase())).toEqual(company);
      expect(await a.companies.findByNetid("nobody-here")).toBeUndefined();
      expect((await a.users.findByLogin(user.uid))?.netid).toBe(company.netid);
    });

    test("findTaken names each taken field: netid (of a company or a user, any case), e-mail (of a company or a user), phone", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);
      const other = fresh();
      expect(await a.companies.findTaken({ netid: other.company.netid, mainEmail: other.company.mainEmail, mainPhone: other.company.mainPhone })).toEqual([]);
      expect(await a.companies.findTaken({ mainEmail: other.company.mainEmail, mainPhone: other.company.mainPhone })).toEqual([]);
      expect(await a.companies.findTaken({ netid: company.netid.toUpperCase(), mainEmail: company.mainEmail, mainPhone: company.mainPhone })).toEqual(["netid", "mainEmail", "mainPhone"]);
      expect(await a.companies.findTaken({ netid: other.company.netid, mainEmail: other.company.mainEmail, mainPhone: company.mainPhone })).toEqual(["mainPhone"]);
      expect(await a.companies.findTaken({ mainEmail: company.mainEmail, mainPhone: other.company.mainPhone })).toEqual(["mainEmail"]);

      // A user whose uid and e-mail differ from its company's: both count as taken.
      const second = fresh();
      const { company: c2 } = second;
      await a.companies.createWithFirstUser(c2, { ...second.user, uid: `User-${serial}`, email: `person${serial}@example.com` });
      expect(await a.companies.findTaken({ netid: `user-${serial}`, mainEmail: `person${serial}@example.com`, mainPhone: "+0000" })).toEqual(["netid", "mainEmail"]);
    });

    test("createWithFirstUser raises ALREADY_REGISTERED naming the taken field, and leaves nothing behind", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);

      const byNetid = fresh();
      const netidError = await conflictOf(a.companies.createWithFirstUser({ ...byNetid.company, netid: company.netid.toUpperCase() }, { ...byNetid.user, uid: `x${serial}` }));
      expect(netidError.code).toBe("ALREADY_REGISTERED");
      expect(netidError.details).toEqual({ field: "netid", fields: ["netid"], errors: [{ field: "netid", message: "is already registered" }] });

      const byEmail = fresh({ mainEmail: company.mainEmail });
      const emailError = await conflictOf(a.companies.createWithFirstUser(byEmail.company, { ...byEmail.user, email: `u${serial}@example.com` }));
      expect(emailError.details).toEqual({ field: "mainEmail", fields: ["mainEmail"], errors: [{ field: "mainEmail", message: "is already registered" }] });

      const byPhone = fresh({ mainPhone: company.mainPhone });
      const phoneError = await conflictOf(a.companies.createWithFirstUser(byPhone.company, byPhone.user));
      expect(phoneError.details).toEqual({ field: "mainPhone", fields: ["mainPhone"], errors: [{ field: "mainPhone", message: "is already registered" }] });
      expect(await a.companies.findByNetid(byPhone.company.netid)).toBeUndefined();

      // The company row is valid, the user's e-mail is taken: the transaction leaves no company behind.
      const byUserEmail = fresh();
      const userEmailError = await conflictOf(a.companies.createWithFirstUser(byUserEmail.company, { ...byUserEmail.user, email: user.email }));
      expect(userEmailError.details).toEqual({ field: "mainEmail", fields: ["mainEmail"], errors: [{ field: "mainEmail", message: "is already registered" }] });
      expect(await a.companies.findByNetid(byUserEmail.company.netid)).toBeUndefined();

      // The user's uid is another user's (in another case): netid.
      const byUid = fresh();
      const uidError = await conflictOf(a.companies.createWithFirstUser(byUid.company, { ...byUid.user, uid: user.uid.toLowerCase() }));
      expect(uidError.details).toEqual({ field: "netid", fields: ["netid"], errors: [{ field: "netid", message: "is already registered" }] });
      expect(await a.companies.findByNetid(byUid.company.netid)).toBeUndefined();
    });

    test("setPlan changes the plan (case-insensitive netid) and tells whether a company was found", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);
      expect(await a.companies.setPlan(company.netid.toUpperCase(), "ENTERPRISE")).toBe(true);
      expect((await a.companies.findByNetid(company.netid))?.plan).toBe("ENTERPRISE");
      expect((await a.users.findCaller(user.uid))?.plan).toBe("ENTERPRISE");
      expect(await a.companies.setPlan("no-such-company", "PROFESSIONAL")).toBe(false);
    });
  });

  describe("users", () => {
    test("findByLogin finds by uid or e-mail, case-insensitively, with every field", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);
      expect(await a.users.findByLogin(user.uid.toUpperCase())).toEqual(user);
      expect(await a.users.findByLogin(user.email.toUpperCase())).toEqual(user);
      expect(await a.users.findByLogin("nobody@example.com")).toBeUndefined();
    });

    test("findCaller gives the uid, netid and plan; undefined for an unknown uid", async () => {
      const { company, user } = fresh({ plan: "PROFESSIONAL" });
      await a.companies.createWithFirstUser(company, user);
      expect(await a.users.findCaller(user.uid.toLowerCase())).toEqual({ uid: user.uid, netid: company.netid, plan: "PROFESSIONAL" });
      expect(await a.users.findCaller("unknown-uid")).toBeUndefined();
    });

    test("remove deletes the user and its platform tokens; a second remove finds nothing", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);
      await a.tokens.save(`tok-${serial}-a`, user.uid, 1);
      await a.tokens.save(`tok-${serial}-b`, user.uid, 2);
      expect(await a.tokens.findActiveUid(`tok-${serial}-a`)).toBe(user.uid);
      expect(await a.users.remove(user.uid.toUpperCase())).toBe(true);
      expect(await a.users.findCaller(user.uid)).toBeUndefined();
      expect(await a.users.findByLogin(user.email)).toBeUndefined();
      expect(await a.tokens.findActiveUid(`tok-${serial}-a`)).toBeUndefined();
      expect(await a.tokens.findActiveUid(`tok-${serial}-b`)).toBeUndefined();
      expect(await a.users.remove(user.uid)).toBe(false);
      // The company stays.
      expect((await a.companies.findByNetid(company.netid))?.netid).toBe(company.netid);
    });
  });

  describe("platform tokens", () => {
    test("a saved token is active until released; release works once", async () => {
      const { company, user } = fresh();
      await a.companies.createWithFirstUser(company, user);
      const hash = `token-hash-${serial}`;
      expect(await a.tokens.findActiveUid(hash)).toBeUndefined();
      await a.tokens.save(hash, user.uid, 100);
      expect(await a.tokens.findActiveUid(hash)).toBe(user.uid);
      expect(await a.tokens.release(hash, 200)).toBe(true);
      expect(await a.tokens.findActiveUid(hash)).toBeUndefined();
      expect(await a.tokens.release(hash, 300)).toBe(false);
      expect(await a.tokens.release("never-saved", 300)).toBe(false);
    });
  });

  describe("revoked core tokens", () => {
    test("a revoked token id is seen as revoked by every instance at once; revoking twice is harmless; others are not", async () => {
      const [one, other] = a.revoked;
      const id = `jti:contract-${++serial}`;
      expect(await other.isRevoked(id)).toBe(false);
      await one.revoke(id, 1_900_000_000);
      await one.revoke(id, 1_900_000_000);
      expect(await other.isRevoked(id)).toBe(true);
      expect(await one.isRevoked(id)).toBe(true);
      expect(await other.isRevoked(`${id}-other`)).toBe(false);
    });
  });

  describe("login throttle", () => {
    test("begin reports failures after `since`, oldest first, per key, and the attempts in flight", async () => {
      const k1 = `uid:${++serial}`;
      const k2 = `ip:${serial}`;
      for (const at of [1_000, 1_010]) {
        const r = await a.throttle.begin([k1, k2], 0, () => true);
        expect(r.admitted).toBe(true);
        await a.throttle.end([k1, k2], true, at);
      }
      await a.throttle.begin([k1], 0, () => true);
      await a.throttle.end([k1], true, 1_020);

      const { seen, admitted } = await a.throttle.begin([k1, k2], 1_005, () => true);
      expect(admitted).toBe(true);
      expect(seen).toEqual([
        { failures: [1_010, 1_020], pending: 0 },
        { failures: [1_010], pending: 0 },
      ]);
      // This attempt is now in flight: the next one sees it, until it ends without failing.
      expect((await a.throttle.begin([k1], 0, () => false)).seen).toEqual([{ failures: [1_000, 1_010, 1_020], pending: 1 }]);
      await a.throttle.end([k1, k2], false, 1_030);
      expect((await a.throttle.begin([k1, k2], 0, () => false)).seen).toEqual([
        { failures: [1_000, 1_010, 1_020], pending: 0 },
        { failures: [1_000, 1_010], pending: 0 },
      ]);
    });

    test("a refused attempt is not counted as in flight", async () => {
      const key = `uid:${++serial}`;
      const first = await a.throttle.begin([key], 0, () => false);
      expect(first).toEqual({ seen: [{ failures: [], pending: 0 }], admitted: false });
      expect((await a.throttle.begin([key], 0, () => false)).seen).toEqual([{ failures: [], pending: 0 }]);
    });

    test("20 concurrent attempts against a limit of 5: exactly 5 admitted, and each saw the ones before it", async () => {
      const keys = [`uid:${++serial}`, `ip:${serial}`];
      await a.throttle.end(keys, true, 5_000);
      const results = await Promise.all(Array.from({ length: 20 }, () => a.throttle.begin(keys, 0, under(6))));
      expect(results.filter((r) => r.admitted)).toHaveLength(5);
      const pendingSeen = results.map((r) => r.seen[0]!.pending).sort((x, y) => x - y);
      expect(pendingSeen.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
      expect(pendingSeen.slice(5).every((p) => p === 5)).toBe(true);
      for (let i = 0; i < 5; i++) await a.throttle.end(keys, false, 5_001);
      expect((await a.throttle.begin(keys, 0, () => false)).seen).toEqual([
        { failures: [5_000], pending: 0 },
        { failures: [5_000], pending: 0 },
      ]);
    });

    test("20 concurrent attempts spread over two instances against a limit of 5: exactly 5 admitted across both", async () => {
      const keys = [`uid:${++serial}`, `ip:${serial}`];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => a.instances[i % 2]!.begin(keys, 0, under(5))));
      const admitted = results.map((r, i) => (r.admitted ? i % 2 : -1)).filter((i) => i >= 0);
      expect(admitted).toHaveLength(5);
      // Each admitted attempt ends on the instance that admitted it; then nothing is in flight any more.
      for (const i of admitted) await a.instances[i as 0 | 1].end(keys, true, 8_000);
      expect((await a.instances[0].begin(keys, 0, () => false)).seen).toEqual([
        { failures: [8_000, 8_000, 8_000, 8_000, 8_000], pending: 0 },
        { failures: [8_000, 8_000, 8_000, 8_000, 8_000], pending: 0 },
      ]);
      expect((await a.instances[1].begin(keys, 0, under(6))).admitted).toBe(true);
      await a.instances[1].end(keys, false, 8_001);
    });

    test("a failure recorded through one connection is seen by the next decision on another", async () => {
      const key = `uid:${++serial}`;
      await a.throttle.begin([key], 0, () => true);
      await a.throttle.end([key], true, 7_000);
      const { seen, admitted } = await a.otherThrottle.begin([key], 0, under(1));
      expect(seen).toEqual([{ failures: [7_000], pending: 0 }]);
      expect(admitted).toBe(false);
    });

    test("failures older than a day before a new failure are pruned", async () => {
      const key = `uid:${++serial}`;
      await a.throttle.end([key], true, 10_000);
      await a.throttle.end([key], true, 10_000 + 24 * 3600 + 1);
      expect((await a.throttle.begin([key], 0, () => false)).seen).toEqual([{ failures: [10_000 + 24 * 3600 + 1], pending: 0 }]);
    });
  });
});
