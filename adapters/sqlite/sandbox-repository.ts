import { eq } from "drizzle-orm";
import type { SandboxTrip, SandboxTrips } from "../../domain/usecases/sandbox-dispatch";
import { SANDBOX_NEXT } from "../../domain/usecases/sandbox-dispatch";
import { AccountCache } from "./account-cache";
import { changed } from "./account-repositories";
import type { Db } from "./db";
import { companies } from "./schema";

const OPEN = Object.keys(SANDBOX_NEXT);

/**
 * A sandbox provider's open bookings, through bookings_provider_status: never a scan of all bookings (the
 * dispatcher asks several times a second, also while real trips pour in).
 */
export const OPEN_BOOKINGS_SQL = `
  SELECT transaction_id AS transactionId, provider_id AS providerId, requester_id AS requesterId,
         requester_res_no AS requesterResNo, status, submit_date AS submitDate
    FROM bookings INDEXED BY bookings_provider_status
   WHERE provider_id = ? AND status IN (${OPEN.map((s) => `'${s}'`).join(", ")})
   ORDER BY submit_date, transaction_id
   LIMIT ?`;

/** Sandbox flags, and the open bookings of sandbox providers (read through bookings_provider_status). */
export class SqliteSandboxRepository implements SandboxTrips {
  private readonly sandboxes;
  private readonly openFor;

  constructor(private readonly db: Db) {
    this.sandboxes = db.$client.query<{ netid: string }, []>("SELECT netid FROM companies WHERE sandbox = 1");
    this.openFor = db.$client.query<SandboxTrip & { submitDate: number }, [string, number]>(OPEN_BOOKINGS_SQL);
  }

  async open(limit: number): Promise<SandboxTrip[]> {
    const trips: Array<SandboxTrip & { submitDate: number }> = [];
    for (const { netid } of this.sandboxes.all()) trips.push(...this.openFor.all(netid, limit));
    trips.sort((a, b) => a.submitDate - b.submitDate || (a.transactionId < b.transactionId ? -1 : a.transactionId > b.transactionId ? 1 : 0));
    return trips.slice(0, limit).map(({ submitDate: _, ...trip }) => trip);
  }

  /** Turns the sandbox on or off for a company (netid in any letter case); false when there is no such company. */
  async setSandbox(netid: string, on: boolean): Promise<boolean> {
    const done = changed(this.db.update(companies).set({ sandbox: on }).where(eq(companies.netidLower, netid.toLowerCase())).run());
    AccountCache.of(this.db).clear();
    return done;
  }

  /** Whether the company (netid in any letter case) is a sandbox. */
  async isSandbox(netid: string): Promise<boolean> {
    return this.db.select({ sandbox: companies.sandbox }).from(companies).where(eq(companies.netidLower, netid.toLowerCase())).get()?.sandbox ?? false;
  }
}
