import type { SecretSealer } from "../../domain/delivery/ports";
import { secretContext } from "./delivery-repositories";
import type { Db } from "./db";

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
      "SELECT netid, delivery_password AS password, webhook_secret AS secret FROM company_integrations WHERE (delivery_password IS NOT NULL AND delivery_password NOT LIKE ?) OR (webhook_secret IS NOT NULL AND webhook_secret NOT LIKE ?)",
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
