import { and, asc, eq, inArray, isNull, lt, or, gt, sql } from "drizzle-orm";
import { alreadyRegistered, companyFromStored, type Company, type UniqueField } from "../../domain/company/registration";
import { companyNames } from "../../domain/company/names";
import type { Plan } from "../../domain/company/plan";
import type { Caller, CompanyRepository, LoginAttemptsSeen, LoginThrottle } from "../../domain/ports";
import type { PlatformTokenRepository, RevokedTokens, User, UserRepository } from "../../domain/ports";
import { preparedByKey, type PgDb } from "./db";
import { PgAccountCache } from "./account-cache";
import { companies, loginAttempts, loginFailures, platformTokens, revokedTokens, users } from "./schema";

// The lookups every request makes (caller, platform-token owner, company, revocation) are answered from the
// instance's PgAccountCache, kept in step with every instance's changes (see account-cache.ts); a write here
// empties it once committed, so it holds on this instance at once. The hot lookups are prepared once.

/** The account repositories' common ground: the database and the instance's account cache (none: nothing kept). */
abstract class PgAccountStore {
  constructor(
    protected readonly db: PgDb,
    protected readonly cache: PgAccountCache = PgAccountCache.none(),
  ) {}
}

/** The errors an error wraps (drizzle wraps the driver's error in `cause`), outermost first, a few levels deep. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) chain.push(e);
  return chain;
}

/** Which unique field a PostgreSQL unique violation (SQLSTATE 23505) is about, if it is one. */
function uniqueFieldOf(error: unknown): UniqueField | undefined {
  for (const e of causes(error)) {
    if (!(e instanceof Error)) continue;
    const { errno, constraint } = e as Error & { errno?: unknown; constraint?: unknown };
    const unique = errno === "23505" || /duplicate key value violates unique constraint/.test(e.message);
    if (!unique) continue;
    const name = `${typeof constraint === "string" ? constraint : ""} ${e.message}`;
    if (name.includes("companies_main_email") || name.includes("users_email")) return "mainEmail";
    if (name.includes("companies_main_phone")) return "mainPhone";
    return "netid";
  }
  return undefined;
}

export class PgCompanyRepository extends PgAccountStore implements CompanyRepository {
  // Asked on every sendTrip (the provider): prepared once.
  private readonly byNetid = preparedByKey(this.db, companies, companies.netidLower, "netidLower", "company_by_netid");

  async findByNetid(netid: string): Promise<Company | undefined> {
    const key = netid.toLowerCase();
    // Only found companies are kept: an unknown netid is looked up every time.
    return this.cache.through(this.cache.companies, key, async () => {
      const [row] = await this.byNetid.execute({ netidLower: key });
      return row ? Object.freeze(companyFromStored(row)) : undefined;
    });
  }

  namesOf(netids: readonly string[]): Promise<Map<string, string>> {
    const named = { netidLower: companies.netidLower, name: companies.name };
    const read = (keys: string[]) => this.db.select(named).from(companies).where(inArray(companies.netidLower, keys));
    return companyNames(netids, (key) => this.cache.companies.get(key), read);
  }

  async findTaken(c: { netid?: string; mainEmail: string; mainPhone: string }) {
    // One round trip: each field is taken when a company, or for netid and e-mail a user, already holds it.
    const lower = c.netid?.toLowerCase() ?? null;
    const [row] = await this.db.execute<{ netid: boolean; email: boolean; phone: boolean }>(sql`
      SELECT
        (${lower}::text IS NOT NULL AND (EXISTS (SELECT 1 FROM ${companies} WHERE ${companies.netidLower} = ${lower}::text)
          OR EXISTS (SELECT 1 FROM ${users} WHERE ${users.uidLower} = ${lower}::text))) AS "netid",
        (EXISTS (SELECT 1 FROM ${companies} WHERE ${companies.mainEmail} = ${c.mainEmail})
          OR EXISTS (SELECT 1 FROM ${users} WHERE ${users.email} = ${c.mainEmail})) AS "email",
        EXISTS (SELECT 1 FROM ${companies} WHERE ${companies.mainPhone} = ${c.mainPhone}) AS "phone"`);
    const taken: UniqueField[] = [];
    if (row?.netid) taken.push("netid");
    if (row?.email) taken.push("mainEmail");
    if (row?.phone) taken.push("mainPhone");
    return taken;
  }

  async createWithFirstUser(company: Company, user: User): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        await tx.insert(companies).values({ ...company, netidLower: company.netid.toLowerCase() });
        await tx.insert(users).values({ ...user, uidLower: user.uid.toLowerCase() });
      });
      this.cache.clear();
    } catch (error) {
      const field = uniqueFieldOf(error);
      if (field) throw alreadyRegistered([field]);
      throw error;
    }
  }

  async setPlan(netid: string, plan: Plan): Promise<boolean> {
    const rows = await this.db.update(companies).set({ plan }).where(eq(companies.netidLower, netid.toLowerCase())).returning({ netid: companies.netid });
    return this.cache.written(rows);
  }
}

export class PgUserRepository extends PgAccountStore implements UserRepository {
  // Every authenticated request asks for its caller: prepared once.
  private readonly callerByUid = this.db
    .select({ uid: users.uid, netid: users.netid, plan: sql<Plan>`${companies.plan}` })
    .from(users)
    .innerJoin(companies, eq(companies.netid, users.netid))
    .where(eq(users.uidLower, sql.placeholder("uidLower")))
    .limit(1)
    .prepare("caller_by_uid");

  async findByLogin(login: string): Promise<User | undefined> {
    const lower = login.toLowerCase();
    const [row] = await this.db
      .select()
      .from(users)
      .where(or(eq(users.uidLower, lower), eq(users.email, lower)))
      .limit(1);
    return row ? { uid: row.uid, netid: row.netid, email: row.email, passwordHash: row.passwordHash, createdAt: row.createdAt } : undefined;
  }

  async findCaller(uid: string): Promise<Caller | undefined> {
    const key = uid.toLowerCase();
    // Only found callers are kept: a removed or unknown uid is looked up every time.
    return this.cache.through(this.cache.callers, key, async () => {
      const [caller] = await this.callerByUid.execute({ uidLower: key });
      return caller ? Object.freeze(caller) : undefined;
    });
  }

  async remove(uid: string): Promise<boolean> {
    // The user's platform tokens go with it (ON DELETE CASCADE).
    return this.cache.written(await this.db.delete(users).where(eq(users.uidLower, uid.toLowerCase())).returning({ uid: users.uid }));
  }
}

export class PgPlatformTokenRepository extends PgAccountStore implements PlatformTokenRepository {
  // Every platform request looks its token up: prepared once.
  private readonly activeUid = this.db
    .select({ uid: platformTokens.uid })
    .from(platformTokens)
    .where(and(eq(platformTokens.tokenHash, sql.placeholder("tokenHash")), isNull(platformTokens.releasedAt)))
    .limit(1)
    .prepare("platform_token_uid");

  async save(tokenHash: string, uid: string, createdAt: number): Promise<void> {
    await this.db.insert(platformTokens).values({ tokenHash, uid, createdAt });
  }

  async findActiveUid(tokenHash: string): Promise<string | undefined> {
    // Only active tokens are kept: a released or unknown token is looked up every time.
    return this.cache.through(this.cache.tokenUids, tokenHash, async () => (await this.activeUid.execute({ tokenHash }))[0]?.uid);
  }

  async release(tokenHash: string, at: number): Promise<boolean> {
    const rows = await this.db
      .update(platformTokens)
      .set({ releasedAt: at })
      .where(and(eq(platformTokens.tokenHash, tokenHash), isNull(platformTokens.releasedAt)))
      .returning({ tokenHash: platformTokens.tokenHash });
    return this.cache.written(rows);
  }
}

/** First key of the two-key advisory locks the login throttle takes (the second is a hash of the throttle key). */
const THROTTLE_LOCK_CLASS = 0x6c6f67; // "log"
/** An attempt in flight older than this (seconds) is no longer counted: its instance died while checking it. */
export const LOGIN_ATTEMPT_LEASE_S = 60;

/** The advisory lock keys for `keys`: 32-bit hashes, distinct and sorted, so every caller locks in one order. */
function lockKeys(keys: string[]): number[] {
  return [...new Set(keys.map((key) => Bun.hash.crc32(key) | 0))].sort((a, b) => a - b);
}

/** The database's clock in seconds (every instance counts leases by the same clock). */
const dbNow = sql<number>`extract(epoch from clock_timestamp())::float8`;

/**
 * One budget across instances. Failures live in `login_failures`, the attempts in flight (admitted, password still
 * being checked) in `login_attempts`, stamped with the database's clock; `end` deletes them, and an attempt older
 * than its lease is ignored (its instance died mid-check; retention removes it).
 *
 * `begin` runs in one transaction holding `pg_advisory_xact_lock` on each key (in sorted order, so two callers
 * never wait on each other in a cycle): it reads the failures and the attempts in flight, decides, and inserts its
 * own attempts before the lock is released. Concurrent attempts on a key, from any connection of any instance,
 * therefore decide one after another, each seeing those admitted before it.
 */
/**
 * Revocations live in the database; each instance remembers the token ids it found not revoked (PgAccountCache),
 * until any account change empties that: a sign-out holds on the instance that took it at once, on every other
 * within the cache's notification (at most ACCOUNT_POLL_MS and a round trip when notifications are lost).
 */
export class PgRevokedTokens extends PgAccountStore implements RevokedTokens {
  // Asked on every request with a core token that the cache cannot answer: prepared once.
  private readonly byId = preparedByKey(this.db, revokedTokens, revokedTokens.tokenId, "tokenId", "revoked_token");

  async revoke(tokenId: string, expiresAt: number): Promise<void> {
    await this.db.insert(revokedTokens).values({ tokenId, expiresAt }).onConflictDoNothing();
    this.cache.clear();
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    if (this.cache.notRevoked.has(tokenId)) return false;
    const ticket = this.cache.ticket();
    const [row] = await this.byId.execute({ tokenId });
    if (row === undefined) this.cache.rememberNotRevoked(ticket, tokenId);
    return row !== undefined;
  }
}

export class PgLoginThrottle implements LoginThrottle {
  constructor(private readonly db: PgDb) {}

  /** This instance's attempts in flight per key (ids, oldest first), so that `end` deletes its own. */
  private readonly mine = new Map<string, number[]>();

  async begin(keys: string[], since: number, admit: (seen: LoginAttemptsSeen[]) => boolean): Promise<{ seen: LoginAttemptsSeen[]; admitted: boolean }> {
    if (keys.length === 0) return { seen: [], admitted: admit([]) };
    const result = await this.db.transaction(async (tx) => {
      for (const key of lockKeys(keys)) await tx.execute(sql`SELECT pg_advisory_xact_lock(${THROTTLE_LOCK_CLASS}::int, ${key}::int)`);
      const failures = await tx
        .select({ key: loginFailures.key, at: loginFailures.at })
        .from(loginFailures)
        .where(and(inArray(loginFailures.key, keys), gt(loginFailures.at, since)))
        .orderBy(asc(loginFailures.at), asc(loginFailures.id));
      const attempts = await tx
        .select({ key: loginAttempts.key, n: sql<number>`count(*)::int` })
        .from(loginAttempts)
        .where(and(inArray(loginAttempts.key, keys), sql`${loginAttempts.startedAt} > ${dbNow} - ${LOGIN_ATTEMPT_LEASE_S}`))
        .groupBy(loginAttempts.key);
      const seen = keys.map((key) => ({
        failures: failures.filter((r) => r.key === key).map((r) => r.at),
        pending: Number(attempts.find((r) => r.key === key)?.n ?? 0),
      }));
      const admitted = admit(seen);
      const ids = admitted
        ? await tx
            .insert(loginAttempts)
            .values(keys.map((key) => ({ key, startedAt: dbNow })))
            .returning({ id: loginAttempts.id, key: loginAttempts.key })
        : [];
      return { seen, admitted, ids };
    });
    for (const { id, key } of result.ids) {
      const list = this.mine.get(key);
      if (list) list.push(id);
      else this.mine.set(key, [id]);
    }
    return { seen: result.seen, admitted: result.admitted };
  }

  async end(keys: string[], failed: boolean, at: number): Promise<void> {
    const ids: number[] = [];
    for (const key of keys) {
      const list = this.mine.get(key);
      const id = list?.shift();
      if (id !== undefined) ids.push(id);
      if (list && list.length === 0) this.mine.delete(key);
    }
    if (ids.length === 0 && !failed) return;
    await this.db.transaction(async (tx) => {
      if (ids.length > 0) await tx.delete(loginAttempts).where(inArray(loginAttempts.id, ids));
      if (!failed || keys.length === 0) return;
      await tx.insert(loginFailures).values(keys.map((key) => ({ key, at })));
      // Old failures no longer matter to any window; prune them as we go.
      await tx.delete(loginFailures).where(lt(loginFailures.at, at - 24 * 3600));
    });
  }
}
