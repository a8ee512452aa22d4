import { and, eq, inArray, isNotNull, notLike, or } from "drizzle-orm";
import type { Integration } from "../../domain/delivery/integration";
import { integrationOf, integrationRecord, secretContext } from "../../domain/delivery/integration-record";
import type { IntegrationLookup, IntegrationRepository, SecretSealer } from "../../domain/delivery/ports";
import type { PgDb } from "./db";
import { companyIntegrations } from "./schema";
import { DEFAULT_SERVICE_RADIUS_KM } from "../../domain/trips/service-area";

export { secretContext };

/** How long a prefetched integration is kept at most (it is read again before every use; this only bounds the map). */
const PREFETCH_KEEP_MS = 60_000;
/** Past this many prefetched companies, entries older than PREFETCH_KEEP_MS are dropped. */
const PREFETCH_PRUNE_AT = 1_000;

/**
 * Companies' integration settings in PostgreSQL; delivery passwords and webhook secrets stored sealed. `get`
 * asks the database every time (another instance may have saved a change). `getSync` serves the synchronous
 * lookup of a booking change's announcer from `prefetch`, which the booking repository runs for the netids
 * involved right before the announcer: a netid not prefetched reads as no integration.
 */
export class PgIntegrationRepository implements IntegrationRepository, IntegrationLookup {
  private readonly prefetched = new Map<string, { integration: Integration | undefined; at: number }>();

  constructor(
    private readonly db: PgDb,
    private readonly secrets: SecretSealer,
  ) {}

  async largestServiceRadiusKm(): Promise<number> {
    const [row] = await this.db.$client.unsafe("SELECT max(service_radius_km) AS km FROM company_integrations");
    return Math.max(DEFAULT_SERVICE_RADIUS_KM, Number(row?.km ?? 0));
  }

  async get(netid: string): Promise<Integration | undefined> {
    const [row] = await this.db.select().from(companyIntegrations).where(eq(companyIntegrations.netid, netid)).limit(1);
    return row ? integrationOf(row, this.secrets) : undefined;
  }

  async getMany(netids: readonly string[]): Promise<Map<string, Integration>> {
    const out = new Map<string, Integration>();
    const wanted = [...new Set(netids)];
    if (wanted.length === 0) return out;
    for (const row of await this.db.select().from(companyIntegrations).where(inArray(companyIntegrations.netid, wanted))) out.set(row.netid, integrationOf(row, this.secrets));
    return out;
  }

  /** The integration `prefetch` last read for `netid` (undefined when it read none or was not asked for it). */
  getSync(netid: string): Integration | undefined {
    return this.prefetched.get(netid)?.integration;
  }

  /** Reads the integrations of `netids` (one query) for `getSync` to answer from. */
  async prefetch(netids: readonly string[]): Promise<void> {
    const wanted = [...new Set(netids)];
    if (wanted.length === 0) return;
    const rows = await this.db.select().from(companyIntegrations).where(inArray(companyIntegrations.netid, wanted));
    const at = Date.now();
    if (this.prefetched.size > PREFETCH_PRUNE_AT) {
      for (const [netid, entry] of this.prefetched) if (entry.at < at - PREFETCH_KEEP_MS) this.prefetched.delete(netid);
    }
    for (const netid of wanted) this.prefetched.set(netid, { integration: undefined, at });
    for (const row of rows) this.prefetched.set(row.netid, { integration: Object.freeze(integrationOf(row, this.secrets)), at });
  }

  async save(i: Integration, at: number): Promise<void> {
    const values = integrationRecord(i, this.secrets, at);
    await this.db.insert(companyIntegrations).values({ netid: i.netid, ...values }).onConflictDoUpdate({ target: companyIntegrations.netid, set: values });
  }
}


const SEALED_PREFIX = "enc:v1:";

/**
 * Seals the delivery passwords and webhook secrets stored in plain text (a database imported from before
 * encryption at rest existed), in one transaction. Returns how many companies' rows were sealed. PostgreSQL
 * keeps old row versions until VACUUM reclaims them; run VACUUM on company_integrations afterwards.
 */
export async function sealStoredSecretsPg(db: PgDb, secrets: SecretSealer): Promise<number> {
  const plainIn = (column: typeof companyIntegrations.deliveryPassword | typeof companyIntegrations.webhookSecret) => and(isNotNull(column), notLike(column, `${SEALED_PREFIX}%`));
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
