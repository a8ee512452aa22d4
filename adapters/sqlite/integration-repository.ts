import { eq, sql } from "drizzle-orm";
import type { Integration } from "../../domain/delivery/integration";
import { integrationOf, integrationRecord, secretContext } from "../../domain/delivery/integration-record";
import type { IntegrationLookup, IntegrationRepository, SecretSealer } from "../../domain/delivery/ports";
import { DEFAULT_SERVICE_RADIUS_KM } from "../../domain/trips/service-radius";
import { AccountCache } from "./account-cache";
import type { Db } from "./db";
import { companyIntegrations } from "./schema";

export class SqliteIntegrationRepository implements IntegrationRepository, IntegrationLookup {
  // Read twice inside every booking change (provider and requester): prepared once.
  private readonly byNetid;

  constructor(
    private readonly db: Db,
    /** Delivery passwords and webhook secrets are stored sealed. */
    private readonly secrets: SecretSealer,
  ) {
    this.byNetid = db
      .select()
      .from(companyIntegrations)
      .where(eq(companyIntegrations.netid, sql.placeholder("netid")))
      .prepare();
  }

  async largestServiceRadiusKm(): Promise<number> {
    const row = this.db.$client.query<{ km: number | null }, []>("SELECT max(service_radius_km) AS km FROM company_integrations").get();
    return Math.max(DEFAULT_SERVICE_RADIUS_KM, row?.km ?? 0);
  }

  async get(netid: string): Promise<Integration | undefined> {
    return this.getSync(netid);
  }

  async getMany(netids: readonly string[]): Promise<Map<string, Integration>> {
    // One freshness check for all of them (a network quote asks for hundreds).
    const cache = AccountCache.of(this.db).fresh();
    const out = new Map<string, Integration>();
    for (const netid of netids) {
      let integration = cache.integrations.get(netid);
      if (integration === undefined) {
        const row = this.byNetid.get({ netid });
        integration = cache.remember(cache.integrations, netid, row ? Object.freeze(integrationOf(row, this.secrets)) : null);
      }
      if (integration) out.set(netid, integration);
    }
    return out;
  }

  /** For use inside a synchronous transaction. */
  getSync(netid: string): Integration | undefined {
    const cache = AccountCache.of(this.db).fresh();
    const cached = cache.integrations.get(netid);
    if (cached !== undefined) return cached ?? undefined;
    const row = this.byNetid.get({ netid });
    return cache.remember(cache.integrations, netid, row ? Object.freeze(integrationOf(row, this.secrets)) : null) ?? undefined;
  }

  async save(i: Integration, at: number): Promise<void> {
    const values = integrationRecord(i, this.secrets, at);
    this.db
      .insert(companyIntegrations)
      .values({ netid: i.netid, ...values })
      .onConflictDoUpdate({ target: companyIntegrations.netid, set: values })
      .run();
    AccountCache.of(this.db).clear();
  }
}

export { secretContext };

const SEALED = "enc:v1:%";

/**
 * Seals the delivery passwords and webhook secrets stored in plain text before encryption at rest existed.
 * Runs with secure_delete on, so the plain values are overwritten in the file rather than left in freed
 * space, then empties the WAL that held the old pages. Returns how many companies' rows were sealed.
 */
export function sealStoredSecrets(db: Db, secrets: SecretSealer): number {
  const sqlite = db.$client;
  const rows = sqlite
    .query<{ netid: string; password: string | null; secret: string | null }, [string, string]>(
      "SELECT netid, delivery_password AS password, webhook_secret AS secret FROM company_integrations WHERE (delivery_password IS NOT NULL AND " +
        "delivery_password NOT LIKE ?) OR (webhook_secret IS NOT NULL AND webhook_secret NOT LIKE ?)",
    )
    .all(SEALED, SEALED);
  if (rows.length === 0) return 0;
  const update = sqlite.query("UPDATE company_integrations SET delivery_password = ?, webhook_secret = ? WHERE netid = ?");
  const seal = (value: string | null, column: "deliveryPassword" | "webhookSecret", netid: string) =>
    value === null || value.startsWith("enc:v1:") ? value : secrets.seal(value, secretContext(column, netid));
  sqlite.exec("PRAGMA secure_delete = ON");
  try {
    sqlite.transaction(() => {
      for (const r of rows) update.run(seal(r.password, "deliveryPassword", r.netid), seal(r.secret, "webhookSecret", r.netid), r.netid);
    })();
  } finally {
    sqlite.exec("PRAGMA secure_delete = OFF");
  }
  if (sqlite.filename && sqlite.filename !== ":memory:") sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return rows.length;
}
