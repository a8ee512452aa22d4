import { eq } from "drizzle-orm";
import type { SandboxTrip, SandboxTrips } from "../../domain/usecases/sandbox-dispatch";
import { SANDBOX_NEXT } from "../../domain/usecases/sandbox-dispatch";
import type { PgDb } from "./db";
import { companies } from "./schema";

const OPEN = Object.keys(SANDBOX_NEXT);

/**
 * The open bookings of sandbox providers, oldest first: per sandbox company a lateral read through
 * bookings_provider_status (never a scan of all bookings: the dispatcher asks several times a second).
 */
const OPEN_BOOKINGS_SQL = `
  SELECT b.transaction_id AS "transactionId", b.provider_id AS "providerId", b.requester_id AS "requesterId",
         b.requester_res_no AS "requesterResNo", b.status
    FROM companies c
    CROSS JOIN LATERAL (
      SELECT * FROM bookings
       WHERE provider_id = c.netid AND status = ANY($1::text[])
       ORDER BY submit_date, transaction_id COLLATE "C"
       LIMIT $2) b
   WHERE c.sandbox
   ORDER BY b.submit_date, b.transaction_id COLLATE "C"
   LIMIT $2`;

/** Sandbox flags, and the open bookings of sandbox providers, on PostgreSQL. */
export class PgSandboxRepository implements SandboxTrips {
  constructor(private readonly db: PgDb) {}

  async open(limit: number): Promise<SandboxTrip[]> {
    const rows: SandboxTrip[] = await this.db.$client.unsafe(OPEN_BOOKINGS_SQL, [OPEN, limit]);
    return rows.map((row) => ({ ...row }));
  }

  /** Turns the sandbox on or off for a company (netid in any letter case); false when there is no such company. */
  async setSandbox(netid: string, on: boolean): Promise<boolean> {
    const rows = await this.db
      .update(companies)
      .set({ sandbox: on })
      .where(eq(companies.netidLower, netid.toLowerCase()))
      .returning({ netid: companies.netid });
    return rows.length > 0;
  }

  /** Whether the company (netid in any letter case) is a sandbox. */
  async isSandbox(netid: string): Promise<boolean> {
    const [row] = await this.db.select({ sandbox: companies.sandbox }).from(companies).where(eq(companies.netidLower, netid.toLowerCase())).limit(1);
    return row?.sandbox ?? false;
  }
}
