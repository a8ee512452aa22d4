import type { Database, Statement } from "bun:sqlite";
import type { Company } from "../../domain/company/registration";
import type { Integration } from "../../domain/delivery/integration";
import type { Caller } from "../../domain/ports";
import type { StoredRateCard } from "../../domain/pricing/ports";
import type { Db } from "./db";

/** Entries kept per map before the cache starts over (bounds memory under many distinct callers). */
const ACCOUNT_CACHE_LIMIT = 10_000;
/** A commit by another process (a CLI command) is seen by requests starting this long after it, at most. */
const EXTERNAL_CHECK_MS = 1;

/**
 * Callers, platform-token owners, companies, their integration settings and rate cards, read on every authenticated
 * request, booking change or quote and changed rarely, cached per connection (shared by the repositories on it).
 * This process's own writes clear it as they commit; commits by other connections (`tripswitch user remove`,
 * `company set-plan`, `company set-integration`, `rates import`) are noticed through SQLite's `PRAGMA data_version`, looked
 * at no more than once a millisecond. A commit elsewhere clears the cache only when it changed an account table:
 * the account stamp (account_generation, kept by triggers) tells, so the booking writer's commits, about one a
 * millisecond under load, leave it alone.
 */
export class AccountCache {
  private static readonly byConnection = new WeakMap<Database, AccountCache>();
  readonly callers = new Map<string, Caller>();
  readonly tokenUids = new Map<string, string>();
  readonly companies = new Map<string, Readonly<Company>>();
  /** A company's integration settings; null when it has none. */
  readonly integrations = new Map<string, Readonly<Integration> | null>();
  /** A company's rate card; null when it has none (rate_cards keeps the account stamp too: migration 0033). */
  readonly rateCards = new Map<string, StoredRateCard | null>();
  private readonly dataVersion: Statement<{ data_version: number }, []>;
  private readonly accountStamp: Statement<{ n: number }, []> | undefined;
  private version: number;
  private stamp: number | undefined;
  private checkedAt = -Infinity;
  /** How many times another connection's account change emptied the cache (for tests and diagnostics). */
  externalClears = 0;

  private constructor(sqlite: Database) {
    this.dataVersion = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
    this.accountStamp = accountStampQuery(sqlite);
    this.version = this.readVersion();
    this.stamp = this.readStamp();
  }

  static of(db: Db): AccountCache {
    let cache = AccountCache.byConnection.get(db.$client);
    if (!cache) AccountCache.byConnection.set(db.$client, (cache = new AccountCache(db.$client)));
    return cache;
  }

  /** Drops every entry when another connection has committed since the last look. */
  fresh(): this {
    const now = performance.now();
    if (now - this.checkedAt < EXTERNAL_CHECK_MS) return this;
    this.checkedAt = now;
    const version = this.readVersion();
    if (version === this.version) return this;
    this.version = version;
    // Without the stamp (a database from before migration 0008) every commit elsewhere clears the cache.
    const stamp = this.readStamp();
    if (stamp === undefined || stamp !== this.stamp) {
      this.stamp = stamp;
      this.externalClears++;
      this.clear();
      // Cards are dropped only for another connection's commit: this one's writes keep the copy right themselves.
      this.rateCards.clear();
    }
    return this;
  }

  clear(): void {
    this.callers.clear();
    this.tokenUids.clear();
    this.companies.clear();
    this.integrations.clear();
  }

/** What `map` keeps under `key`, else what `read` finds: kept when found, not when not. */
  through<V>(map: Map<string, V>, key: string, read: () => V | undefined): V | undefined {
    const cached = map.get(key);
    if (cached) return cached;
    const found = read();
    return found ? this.remember(map, key, found) : undefined;
  }

    remember<V>(map: Map<string, V>, key: string, value: V): V {
    if (map.size >= ACCOUNT_CACHE_LIMIT) map.clear();
    map.set(key, value);
    return value;
  }

  private readVersion(): number {
    return this.dataVersion.get()?.data_version ?? 0;
  }

  private readStamp(): number | undefined {
    return this.accountStamp?.get()?.n;
  }
}

/** The account stamp's query, or undefined on a database without the table (not migrated yet). */
function accountStampQuery(sqlite: Database): Statement<{ n: number }, []> | undefined {
  try {
    return sqlite.query<{ n: number }, []>("SELECT n FROM account_generation WHERE id = 1");
  } catch (error) {
    if (error instanceof Error && error.message.includes("no such table")) return undefined;
    throw error;
  }
}
