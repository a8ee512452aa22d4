import { eq } from "drizzle-orm";
import type { SandboxTrip, SandboxTrips } from "../../domain/usecases/sandbox-dispatch";
import { SANDBOX_NEXT } from "../../domain/usecases/sandbox-dispatch";
import { AccountCache, changed } from "./account-repositories";
import type { Db } from "./db";
import { companies } from "./schema";

const OPEN = Object.keys(SANDBOX_NEXT);

/** Sandbox flags, and the open bookings of sandbox providers (read through bookings_provider_status). */
export class SqliteSandboxRepository implements SandboxTrips {
  private readonly openStatement;

  constructor(private readonly db: Db) {
    this.openStatement = db.$client.query<SandboxTrip, [number]>(`
      SELECT b.transaction_id AS transactionId, b.provider_id AS providerId, b.requester_id AS requesterId,
             b.requester_res_no AS requesterResNo, b.status AS status
        FROM companies c JOIN bookings b ON b.provider_id = c.netid AND b.status IN (${OPEN.map((s) => `'${s}'`).join(", ")})
       WHERE c.sandbox = 1
       ORDER BY b.submit_date, b.transaction_id
       LIMIT ?`);
  }

  async open(limit: number): Promise<SandboxTrip[]> {
    return this.openStatement.all(limit);
  }

  /** Turns the sandbox on or off for a company (netid in any letter case); false when there is no such company. */
  setSandbox(netid: string, on: boolean): boolean {
    const done = changed(this.db.update(companies).set({ sandbox: on }).where(eq(companies.netidLower, netid.toLowerCase())).run());
    AccountCache.of(this.db).clear();
    return done;
  }

  /** Whether the company (netid in any letter case) is a sandbox. */
  isSandbox(netid: string): boolean {
    return this.db.select({ sandbox: companies.sandbox }).from(companies).where(eq(companies.netidLower, netid.toLowerCase())).get()?.sandbox ?? false;
  }
}
