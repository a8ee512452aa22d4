import type { Caller } from "../../domain/ports";
import type { Company } from "../../domain/company/registration";
import type { Integration } from "../../domain/delivery/integration";
import type { VehicleTypeMap } from "../../domain/partners/partnership";
import type { PgDb } from "./db";
import { listenWithPoll } from "./listen";

/** The channel the account stamp's trigger notifies at the commit of every account change (migration 0013). */
export const ACCOUNT_CHANNEL = "tripswitch_accounts";
/** Entries kept per map before it starts over (bounds memory under many distinct callers). */
const ACCOUNT_CACHE_LIMIT = 10_000;
/** How often the account stamp is read as the safety net under the notifications (a change is seen within this, plus a round trip). */
export const ACCOUNT_POLL_MS = 400;

/** A value read under `epoch`: kept only if no change was noticed while it was read. */
export interface Ticket {
  readonly epoch: number;
}

/**
 * Callers, platform-token owners, companies, integration settings, partners' vehicle-type maps and the core
 * tokens known not to be revoked, as one instance last read them from PostgreSQL: the lookups every request and
 * booking change makes, and rarely changed. Shared by the repositories of one storage.
 *
 * Correct across instances: the account stamp's trigger (companies, users, platform_tokens, company_integrations,
 * partnerships, partner_vehicle_types, revoked_tokens) notifies `tripswitch_accounts` at the commit of any change,
 * whoever writes it (another instance, the CLI, an operator's psql); every instance LISTENs and empties its cache
 * on each notification. The stamp is also read every ACCOUNT_POLL_MS (a change whose notification was lost is seen
 * then), and every (re)subscription of the LISTEN connection empties the cache (what was missed while it was down
 * cannot be known). This instance's own writes empty it as they commit, so they hold here at once.
 *
 * A read that was in flight while the cache was emptied is not kept (`epoch`): it may predate the change.
 */
export class PgAccountCache {
  readonly callers = new Map<string, Caller>();
  readonly tokenUids = new Map<string, string>();
  readonly companies = new Map<string, Readonly<Company>>();
  /** A company's integration settings; null when it has none. */
  readonly integrations = new Map<string, Readonly<Integration> | null>();
  /** The map a provider set for a requester while the two are active partners (empty otherwise), keyed `provider\0requester`. */
  readonly partnerMaps = new Map<string, Readonly<VehicleTypeMap>>();
  /** Core token ids known not to be revoked (revoked ones are never cached: a revocation is never undone). */
  readonly notRevoked = new Set<string>();
  /** Moves whenever the cache is emptied. */
  private epoch = 0;
  private stamp: number | undefined;
  /** How many times a change noticed (notification, stamp, resubscription, own write) emptied the cache. */
  clears = 0;

  /** `keeps` false: nothing is ever kept (repositories built without a watched cache ask the database every time). */
  constructor(private readonly keeps = true) {}

  /** A cache that keeps nothing: for repositories that no account feed keeps in step. */
  static none(): PgAccountCache {
    return new PgAccountCache(false);
  }

  /** Taken before a read whose answer may be kept. */
  ticket(): Ticket {
    return { epoch: this.epoch };
  }

  /** Keeps `value` under `key` unless the cache was emptied since `ticket` was taken. */
  remember<V>(ticket: Ticket, map: Map<string, V>, key: string, value: V): V {
    if (!this.keeps || ticket.epoch !== this.epoch) return value;
    if (map.size >= ACCOUNT_CACHE_LIMIT) map.clear();
    map.set(key, value);
    return value;
  }

  /** What `map` keeps under `key`, else what `read` finds: kept when found (unless the cache was emptied meanwhile), not when not. */
  async through<V>(map: Map<string, V>, key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = map.get(key);
    if (cached) return cached;
    const ticket = this.ticket();
    const found = await read();
    return found ? this.remember(ticket, map, key, found) : undefined;
  }

  /** Notes a token id found not revoked (unless the cache was emptied since `ticket`). */
  rememberNotRevoked(ticket: Ticket, tokenId: string): void {
    if (!this.keeps || ticket.epoch !== this.epoch) return;
    if (this.notRevoked.size >= ACCOUNT_CACHE_LIMIT) this.notRevoked.clear();
    this.notRevoked.add(tokenId);
  }

  /** Empties every map (an account changed somewhere, or it may have). */
  clear(): void {
    this.epoch++;
    this.clears++;
    this.callers.clear();
    this.tokenUids.clear();
    this.companies.clear();
    this.integrations.clear();
    this.partnerMaps.clear();
    this.notRevoked.clear();
  }

  /** After an account write has committed: empties the cache, and tells whether the write returned any row. */
  written(rows: readonly unknown[]): boolean {
    this.clear();
    return rows.length > 0;
  }

  /** Empties the cache when the account stamp read is not the one last seen (the first read only records it). */
  stampRead(n: number): void {
    if (this.stamp !== undefined && n !== this.stamp) this.clear();
    this.stamp = n;
  }

  /**
   * Keeps the cache in step with every instance's changes: LISTEN on the account channel (Bun's client reconnects
   * and subscribes again by itself; each (re)subscription empties the cache) plus the stamp read every `intervalMs`
   * (a failed read empties it too: nothing is known then).
   */
  watch(db: PgDb, onError: (error: unknown) => void, intervalMs = ACCOUNT_POLL_MS): { stop(): Promise<void> } {
    let stopped = false;
    let polling = false;
    const poll = async (): Promise<void> => {
      if (stopped || polling) return;
      polling = true;
      try {
        const ticket = this.ticket();
        const [row] = await db.$client.unsafe<Array<{ n: string | number }>>("SELECT n FROM account_generation WHERE id = 1");
        // A stamp read while the cache was emptied may be older than the change that emptied it: read it next time.
        if (!stopped && row && ticket.epoch === this.epoch) this.stampRead(Number(row.n));
      } catch (error) {
        this.clear();
        onError(error);
      } finally {
        polling = false;
      }
    };
    void poll();
    const listener = listenWithPoll(
      db,
      ACCOUNT_CHANNEL,
      { notified: () => this.clear(), subscribed: () => this.clear(), poll: () => void poll() },
      // The stamp poll goes on without notifications.
      onError,
      intervalMs,
    );
    return {
      async stop() {
        stopped = true;
        await listener.stop();
      },
    };
  }
}
