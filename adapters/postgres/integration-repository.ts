import { and, eq, inArray, isNotNull, notLike, or, sql } from "drizzle-orm";
import type { Integration } from "../../domain/delivery/integration";
import { integrationOf, integrationRecord, secretContext } from "../../domain/delivery/integration-record";
import type { IntegrationLookup, IntegrationRepository, SecretSealer } from "../../domain/delivery/ports";
import { preparedByKey, type PgDb } from "./db";
import { PgAccountCache } from "./account-cache";
import { companyIntegrations } from "./schema";
import { DEFAULT_SERVICE_RADIUS_KM } from "../../domain/trips/service-radius";

export { secretContext };

/** How long a prefetched integration is kept at most (it is looked up again before every use; this only bounds the map). */
const PREFETCH_KEEP_MS = 60_000;
/** Past this many prefetched companies, entries older than PREFETCH_KEEP_MS are dropped. */
const PREFETCH_PRUNE_AT = 1_000;

/**
 * Companies' integration settings in PostgreSQL; delivery passwords and webhook secrets stored sealed. `get`
 * answers from the instance's PgAccountCache (kept in step with every instance's changes; a `save` here empties it
 * at once), reading the database on a miss. `getSync` serves the synchronous lookup of a booking change's announcer
 * from `prefetch`, which the booking repository runs for the netids involved right before the announcer (from the
 * cache, reading only what it misses): a netid not prefetched reads as no integration. The prefetched values are
 * kept apart from the cache, so a change noticed between the prefetch and the announcer cannot empty them under it.
 */
export class PgIntegrationRepository implements IntegrationRepository, IntegrationLookup {
  private readonly prefetched = new Map<string, { integration: Integration | undefined; at: number }>();
  // Read on every sendTrip (the provider's admission) when the cache misses: prepared once.
  private readonly byNetid;

  constructor(
    private readonly db: PgDb,
    private readonly secrets: SecretSealer,
    private readonly cache: PgAccountCache = PgAccountCache.none(),
  ) {
    this.byNetid = preparedByKey(db, companyIntegrations, companyIntegrations.netid, "netid", "integration_by_netid");
  }

  async largestServiceRadiusKm(): Promise<number> {
    const [row] = await this.db.$client.unsafe("SELECT max(service_radius_km) AS km FROM company_integrations");
    return Math.max(DEFAULT_SERVICE_RADIUS_KM, Number(row?.km ?? 0));
  }

  async get(netid: string): Promise<Integration | undefined> {
    const cached = this.cache.integrations.get(netid);
    if (cached !== undefined) return cached ?? undefined;
    const ticket = this.cache.ticket();
    const [row] = await this.byNetid.execute({ netid });
    return this.cache.remember(ticket, this.cache.integrations, netid, row ? Object.freeze(integrationOf(row, this.secrets)) : null) ?? undefined;
  }

  async getMany(netids: readonly string[]): Promise<Map<string, Integration>> {
    const out = new Map<string, Integration>();
    const wanted = [...new Set(netids)];
    if (wanted.length === 0) return out;
    for (const row of await this.db.select().from(companyIntegrations).where(inArray(companyIntegrations.netid, wanted)))
      out.set(row.netid, integrationOf(row, this.secrets));
    return out;
  }

  /** The integration `prefetch` last read for `netid` (undefined when it read none or was not asked for it). */
  getSync(netid: string): Integration | undefined {
    return this.prefetched.get(netid)?.integration;
  }

  /** Looks up the integrations of `netids` for `getSync` to answer from: from the cache, the misses in one query. */
  async prefetch(netids: readonly string[]): Promise<void> {
    const at = Date.now();
    if (this.prefetched.size > PREFETCH_PRUNE_AT) {
      for (const [netid, entry] of this.prefetched) if (entry.at < at - PREFETCH_KEEP_MS) this.prefetched.delete(netid);
    }
    let missing: string[] | undefined;
    for (const netid of netids) {
      const cached = this.cache.integrations.get(netid);
      if (cached === undefined) (missing ??= []).push(netid);
      else this.prefetched.set(netid, { integration: cached ?? undefined, at });
    }
    if (!missing) return;
    const wanted = [...new Set(missing)];
    const ticket = this.cache.ticket();
    const rows = await this.db.select().from(companyIntegrations).where(inArray(companyIntegrations.netid, wanted));
    const found = new Map(rows.map((row) => [row.netid, Object.freeze(integrationOf(row, this.secrets))]));
    for (const netid of wanted) {
      const integration = found.get(netid);
      this.prefetched.set(netid, { integration, at });
      this.cache.remember(ticket, this.cache.integrations, netid, integration ?? null);
    }
  }

  async save(i: Integration, at: number): Promise<void> {
    const values = integrationRecord(i, this.secrets, at);
    await this.db
      .insert(companyIntegrations)
      .values({ netid: i.netid, ...values })
      .onConflictDoUpdate({ target: companyIntegrations.netid, set: values });
    this.cache.clear();
  }
}

const SEALED_PREFIX = "enc:v1:";

/**
 * Seals the delivery passwords and webhook secrets stored in plain text (a database imported from before
 * encryption at rest existed), in one transaction. Returns how many companies' rows were sealed. PostgreSQL
 * keeps old row versions until VACUUM reclaims them; run VACUUM on company_integrations afterwards.
 */
export async function sealStoredSecretsPg(db: PgDb, secrets: SecretSealer): Promise<number> {
  const plainIn = (column: typeof companyIntegrations.deliveryPassword | typeof companyIntegrations.webhookSecret) =>
    and(isNotNull(column), notLike(column, `${SEALED_PREFIX}%`));
  const seal = (value: string | null, column: "deliveryPassword" | "webhookSecret", netid: string) =>
    value === null || value.startsWith(SEALED_PREFIX) ? value : secrets.seal(value, secretContext(column, netid));
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({ netid: companyIntegrations.netid, password: companyIntegrations.deliveryPassword, secret: companyIntegrations.webhookSecret })
      .from(companyIntegrations)
      .where(or(plainIn(companyIntegrations.deliveryPassword), plainIn(companyIntegrations.webhookSecret)))
      .for("update");
    for (const r of rows) {
      await tx
        .update(companyIntegrations)
        .set({ deliveryPassword: seal(r.password, "deliveryPassword", r.netid), webhookSecret: seal(r.secret, "webhookSecret", r.netid) })
        .where(eq(companyIntegrations.netid, r.netid));
    }
    return rows.length;
  });
}
