import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { alreadyRegistered, companyFromStored, type Company, type UniqueField } from "../../domain/company/registration";
import { companyNames } from "../../domain/company/names";
import type { Plan } from "../../domain/company/plan";
import type { Caller, CompanyRepository, LoginAttemptsSeen, LoginThrottle } from "../../domain/ports";
import type { PlatformTokenRepository, RevokedTokens, User, UserRepository } from "../../domain/ports";
import { AccountCache } from "./account-cache";
import { inList } from "./in-list";
import { preparedByKey, type Db } from "./db";
import { companies, loginFailures, platformTokens, revokedTokens, users } from "./schema";

/** Whether a write touched any row (drizzle types bun:sqlite's run() result as void; it is bun's Changes). */
export function changed(result: unknown): boolean {
  return ((result as { changes?: number } | undefined)?.changes ?? 0) > 0;
}

/** After an account write (it commits at once): empties the cache, and tells whether the write touched any row. */
function written(db: Db, result: unknown): boolean {
  AccountCache.of(db).clear();
  return changed(result);
}

/** Which unique field a SQLite constraint message is about, if any. */
function uniqueFieldOf(error: unknown): UniqueField | undefined {
  const message = error instanceof Error ? error.message : "";
  if (!message.includes("UNIQUE")) return undefined;
  if (message.includes("main_email") || message.includes("users.email")) return "mainEmail";
  if (message.includes("main_phone")) return "mainPhone";
  return "netid";
}

export class SqliteCompanyRepository implements CompanyRepository {
  // Asked on every sendTrip: prepared once.
  private readonly byNetid;

  constructor(private readonly db: Db) {
    this.byNetid = preparedByKey(db, companies, companies.netidLower, "netidLower");
  }

  async findByNetid(netid: string): Promise<Company | undefined> {
    const cache = AccountCache.of(this.db).fresh();
    const key = netid.toLowerCase();
    return cache.through(cache.companies, key, () => {
      const row = this.byNetid.get({ netidLower: key });
      return row ? Object.freeze(companyFromStored(row)) : undefined;
    });
  }

  namesOf(netids: readonly string[]): Promise<Map<string, string>> {
    const cache = AccountCache.of(this.db).fresh();
    // One statement text per size class of the list (a quote names the providers of its options): prepared once each.
    const read = async (keys: string[]) => {
      const { placeholders, args } = inList(keys, 1);
      const text = `SELECT netid_lower AS netidLower, name FROM companies WHERE netid_lower IN (${placeholders})`;
      return this.db.$client.query<{ netidLower: string; name: string }, string[]>(text).all(...args);
    };
    return companyNames(netids, (key) => cache.companies.get(key), read);
  }

  async findTaken(c: { netid?: string; mainEmail: string; mainPhone: string }) {
    const taken: UniqueField[] = [];
    if (c.netid) {
      const lower = c.netid.toLowerCase();
      const hit =
        this.db.select({ n: companies.netid }).from(companies).where(eq(companies.netidLower, lower)).get() ??
        this.db.select({ n: users.uid }).from(users).where(eq(users.uidLower, lower)).get();
      if (hit) taken.push("netid");
    }
    const email =
      this.db.select({ n: companies.netid }).from(companies).where(eq(companies.mainEmail, c.mainEmail)).get() ??
      this.db.select({ n: users.uid }).from(users).where(eq(users.email, c.mainEmail)).get();
    if (email) taken.push("mainEmail");
    if (this.db.select({ n: companies.netid }).from(companies).where(eq(companies.mainPhone, c.mainPhone)).get()) taken.push("mainPhone");
    return taken;
  }

  async createWithFirstUser(company: Company, user: User): Promise<void> {
    try {
      this.db.transaction((tx) => {
        tx.insert(companies)
          .values({ ...company, netidLower: company.netid.toLowerCase() })
          .run();
        tx.insert(users)
          .values({ ...user, uidLower: user.uid.toLowerCase() })
          .run();
      });
    } catch (error) {
      const field = uniqueFieldOf(error);
      if (field) throw alreadyRegistered([field]);
      throw error;
    }
  }

  async setPlan(netid: string, plan: Plan): Promise<boolean> {
    const result = this.db.update(companies).set({ plan }).where(eq(companies.netidLower, netid.toLowerCase())).run();
    return written(this.db, result);
  }
}

export class SqliteUserRepository implements UserRepository {
  // Every authenticated request asks for its caller: prepared once, not rebuilt and re-prepared per call.
  private readonly callerByUid;

  constructor(private readonly db: Db) {
    this.callerByUid = db
      .select({ uid: users.uid, netid: users.netid, plan: sql<Plan>`${companies.plan}` })
      .from(users)
      .innerJoin(companies, eq(companies.netid, users.netid))
      .where(eq(users.uidLower, sql.placeholder("uidLower")))
      .prepare();
  }

  async findByLogin(login: string): Promise<User | undefined> {
    const lower = login.toLowerCase();
    const row = this.db
      .select()
      .from(users)
      .where(or(eq(users.uidLower, lower), eq(users.email, lower)))
      .get();
    return row ? { uid: row.uid, netid: row.netid, email: row.email, passwordHash: row.passwordHash, createdAt: row.createdAt } : undefined;
  }

  async findCaller(uid: string): Promise<Caller | undefined> {
    const cache = AccountCache.of(this.db).fresh();
    const key = uid.toLowerCase();
    // Only found callers are kept: a removed or unknown uid is looked up every time.
    return cache.through(cache.callers, key, () => this.callerByUid.get({ uidLower: key }));
  }

  async remove(uid: string): Promise<boolean> {
    return written(this.db, this.db.delete(users).where(eq(users.uidLower, uid.toLowerCase())).run());
  }
}

export class SqlitePlatformTokenRepository implements PlatformTokenRepository {
  // Every platform request looks its token up: prepared once.
  private readonly activeUid;

  constructor(private readonly db: Db) {
    this.activeUid = db
      .select({ uid: platformTokens.uid })
      .from(platformTokens)
      .where(and(eq(platformTokens.tokenHash, sql.placeholder("tokenHash")), isNull(platformTokens.releasedAt)))
      .prepare();
  }

  async save(tokenHash: string, uid: string, createdAt: number): Promise<void> {
    this.db.insert(platformTokens).values({ tokenHash, uid, createdAt }).run();
  }

  async findActiveUid(tokenHash: string): Promise<string | undefined> {
    const cache = AccountCache.of(this.db).fresh();
    return cache.through(cache.tokenUids, tokenHash, () => this.activeUid.get({ tokenHash })?.uid);
  }

  async release(tokenHash: string, at: number): Promise<boolean> {
    const result = this.db
      .update(platformTokens)
      .set({ releasedAt: at })
      .where(and(eq(platformTokens.tokenHash, tokenHash), isNull(platformTokens.releasedAt)))
      .run();
    return written(this.db, result);
  }
}

export class SqliteRevokedTokens implements RevokedTokens {
  // Asked on every request with a core token: prepared once. Not cached, so a sign-out holds at once.
  private readonly byId;

  constructor(private readonly db: Db) {
    this.byId = preparedByKey(db, revokedTokens, revokedTokens.tokenId, "tokenId");
  }

  async revoke(tokenId: string, expiresAt: number): Promise<void> {
    this.db.insert(revokedTokens).values({ tokenId, expiresAt }).onConflictDoNothing().run();
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    return this.byId.get({ tokenId }) !== undefined;
  }
}

export class SqliteLoginThrottle implements LoginThrottle {
  constructor(private readonly db: Db) {}

  /** Attempts admitted and not yet ended, per key: one process serves the database file. */
  private readonly pending = new Map<string, number>();

  async begin(keys: string[], since: number, admit: (seen: LoginAttemptsSeen[]) => boolean): Promise<{ seen: LoginAttemptsSeen[]; admitted: boolean }> {
    // Synchronous from read to decision: no other request runs in between.
    const seen = keys.map((key) => ({
      failures: this.db
        .select({ at: loginFailures.at })
        .from(loginFailures)
        .where(and(eq(loginFailures.key, key), gt(loginFailures.at, since)))
        .orderBy(loginFailures.at)
        .all()
        .map((r) => r.at),
      pending: this.pending.get(key) ?? 0,
    }));
    const admitted = admit(seen);
    if (admitted) for (const key of keys) this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    return { seen, admitted };
  }

  async end(keys: string[], failed: boolean, at: number): Promise<void> {
    for (const key of keys) {
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left > 0) this.pending.set(key, left);
      else this.pending.delete(key);
    }
    if (!failed) return;
    this.db.transaction((tx) => {
      for (const key of keys) tx.insert(loginFailures).values({ key, at }).run();
      // Old failures no longer matter to any window; prune them as we go.
      tx.delete(loginFailures)
        .where(sql`${loginFailures.at} < ${at - 24 * 3600}`)
        .run();
    });
  }
}
