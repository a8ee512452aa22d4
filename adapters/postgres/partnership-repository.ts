import { and, asc, eq, or, sql } from "drizzle-orm";
import { ConflictError } from "../../domain/errors";
import type { Partnership, VehicleTypeMap } from "../../domain/partners/partnership";
import type { ActiveVehicleTypes, PartnershipRepository } from "../../domain/partners/ports";
import { bothWays, oneWay, partnershipPair as pair, toPartnership, vehicleTypeRows } from "../sql/partnership-rows";
import type { PgDb } from "./db";
import { PgAccountCache } from "./account-cache";
import { partnerships, partnerVehicleTypes } from "./schema";

/** Whether an error (or one it wraps) is PostgreSQL's unique violation. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Error && ((e as Error & { errno?: unknown }).errno === "23505" || /duplicate key value violates unique constraint/.test(e.message)))
      return true;
  }
  return false;
}

/** Maps read by `prefetch` kept at most; the oldest go first (a booking change reads its own right after reading it). */
const PREFETCHED_MAX = 10_000;
const pairKey = (provider: string, requester: string) => `${provider}\u0000${requester}`;

/**
 * Partnerships and the partners' vehicle-type maps on PostgreSQL. The synchronous `activeVehicleTypesSync` (read
 * while a booking change builds its outbox rows) answers from the maps `prefetch` looked up just before, in that
 * change: from the instance's PgAccountCache (kept in step with every instance's changes), reading the misses.
 * Every write here empties the cache once committed.
 */
export class PgPartnershipRepository implements PartnershipRepository, ActiveVehicleTypes {
  private readonly prefetched = new Map<string, Readonly<VehicleTypeMap>>();

  constructor(
    private readonly db: PgDb,
    private readonly cache: PgAccountCache = PgAccountCache.none(),
  ) {}

  async find(a: string, b: string): Promise<Partnership | undefined> {
    const [x, y] = pair(a, b);
    const [row] = await this.db
      .select()
      .from(partnerships)
      .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y)))
      .limit(1);
    return row ? toPartnership(row) : undefined;
  }

  async listFor(netid: string): Promise<Partnership[]> {
    const rows = await this.db
      .select()
      .from(partnerships)
      .where(or(eq(partnerships.companyA, netid), eq(partnerships.companyB, netid)))
      .orderBy(asc(partnerships.createdAt), sql`${partnerships.companyA} COLLATE "C"`, sql`${partnerships.companyB} COLLATE "C"`);
    return rows.map(toPartnership);
  }

  async create(requestedBy: string, other: string, at: number): Promise<void> {
    const [companyA, companyB] = pair(requestedBy, other);
    try {
      await this.db.insert(partnerships).values({ companyA, companyB, requestedBy, status: "pending", createdAt: at });
      this.cache.clear();
    } catch (error) {
      // The other side asked at the same moment: the pair has its row already.
      if (isUniqueViolation(error)) throw new ConflictError(`A partnership with ${other} exists already`, "PARTNERSHIP_EXISTS");
      throw error;
    }
  }

  async activate(a: string, b: string, at: number): Promise<void> {
    const [x, y] = pair(a, b);
    await this.db
      .update(partnerships)
      .set({ status: "active", acceptedAt: at })
      .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y), eq(partnerships.status, "pending")));
    this.cache.clear();
  }

  async remove(a: string, b: string): Promise<boolean> {
    const [x, y] = pair(a, b);
    const removed = await this.db.transaction(async (tx) => {
      const gone = await tx
        .delete(partnerships)
        .where(and(eq(partnerships.companyA, x), eq(partnerships.companyB, y)))
        .returning({ a: partnerships.companyA });
      await tx.delete(partnerVehicleTypes).where(bothWays(partnerVehicleTypes, a, b));
      return gone.length > 0;
    });
    this.cache.clear();
    return removed;
  }

  async vehicleTypes(provider: string, requester: string): Promise<VehicleTypeMap> {
    const rows = await this.db
      .select({ requesterType: partnerVehicleTypes.requesterType, providerType: partnerVehicleTypes.providerType })
      .from(partnerVehicleTypes)
      .where(oneWay(partnerVehicleTypes, provider, requester))
      .orderBy(sql`${partnerVehicleTypes.requesterType} COLLATE "C"`);
    return Object.fromEntries(rows.map((r) => [r.requesterType, r.providerType]));
  }

  async setVehicleTypes(provider: string, requester: string, map: VehicleTypeMap): Promise<void> {
    const where = oneWay(partnerVehicleTypes, provider, requester);
    const rows = vehicleTypeRows(provider, requester, map);
    await this.db.transaction(async (tx) => {
      await tx.delete(partnerVehicleTypes).where(where);
      if (rows.length > 0) await tx.insert(partnerVehicleTypes).values(rows);
    });
    this.cache.clear();
  }

  /**
   * Looks up the maps of `all` (provider, requester) that `activeVehicleTypesSync` then answers from (the cache, the misses read in one query)
   * — each the map the provider set for the requester while the two are active partners, else empty.
   */
  async prefetch(all: ReadonlyArray<readonly [provider: string, requester: string]>): Promise<void> {
    const pairs: Array<readonly [string, string]> = [];
    for (const [provider, requester] of all) {
      const key = pairKey(provider, requester);
      const cached = this.cache.partnerMaps.get(key);
      if (cached === undefined) pairs.push([provider, requester]);
      else this.keep(key, cached);
    }
    if (pairs.length === 0) return;
    const ticket = this.cache.ticket();
    const providers = pairs.map((p) => p[0]);
    const requesters = pairs.map((p) => p[1]);
    const rows: Array<{ provider: string; requester: string; requesterType: string; providerType: string }> = await this.db.$client.unsafe(
      `SELECT v.provider_netid AS provider, v.requester_netid AS requester, v.requester_type AS "requesterType", v.provider_type AS "providerType"
         FROM unnest($1::text[], $2::text[]) AS w(provider, requester)
         JOIN partner_vehicle_types v ON v.provider_netid = w.provider AND v.requester_netid = w.requester
         JOIN partnerships p ON p.status = 'active'
          AND ((p.company_a = w.provider AND p.company_b = w.requester) OR (p.company_a = w.requester AND p.company_b = w.provider))
        ORDER BY v.requester_type COLLATE "C"`,
      [providers, requesters],
    );
    const maps = new Map<string, VehicleTypeMap>(pairs.map(([provider, requester]) => [pairKey(provider, requester), {}]));
    for (const r of rows) {
      const map = maps.get(pairKey(r.provider, r.requester));
      if (map) map[r.requesterType] = r.providerType;
    }
    for (const [key, map] of maps) {
      Object.freeze(map);
      this.cache.remember(ticket, this.cache.partnerMaps, key, map);
      this.keep(key, map);
    }
  }

  /** Keeps a looked-up map for `activeVehicleTypesSync`, the oldest dropped past PREFETCHED_MAX. */
  private keep(key: string, map: Readonly<VehicleTypeMap>): void {
    this.prefetched.delete(key);
    this.prefetched.set(key, map);
    if (this.prefetched.size <= PREFETCHED_MAX) return;
    for (const old of this.prefetched.keys()) {
      if (this.prefetched.size <= PREFETCHED_MAX) break;
      this.prefetched.delete(old);
    }
  }

  /** The map `provider` set for `requester` as `prefetch` last read it; empty when it was not read. */
  activeVehicleTypesSync(provider: string, requester: string): VehicleTypeMap {
    return { ...(this.prefetched.get(pairKey(provider, requester)) ?? {}) };
  }
}
