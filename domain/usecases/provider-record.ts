import { NotFoundError } from "../errors";
import type { Clock, CompanyRepository } from "../ports";
import { offersRides } from "../company/offers";
import { offersOf, type OfferFacts } from "../partners/offer-facts";
import { providerRecordOf, RECORD_WINDOW_SECONDS, type ProviderHistory, type ProviderRecord } from "../partners/provider-record";

/**
 * How long a provider's record is reused before it is read again (docs/terms.md#provider-record): a network quote asks
 * for many at once, and the record shows every offer within a minute.
 */
export const RECORD_CACHE_SECONDS = 60;
/** Records kept at most (the oldest read first dropped). */
const MAX_CACHED = 10_000;

export interface ProviderRecordDeps {
  history: ProviderHistory;
  companies: Pick<CompanyRepository, "findByNetid">;
  clock: Clock;
}

/**
 * Providers' records (docs/terms.md#provider-record), each read from the offers made to it on the bookings of the last
 * 90 days and kept a minute: the records a network quote needs that are not kept are read in one query for all of them.
 */
export class ProviderRecords {
  private readonly kept = new Map<string, { at: number; record: ProviderRecord }>();

  constructor(private readonly deps: ProviderRecordDeps) {}

  /**
   * GET /api/providers/{netid}/record: any signed-in company may ask about a company that offers rides (an IO
   * operator, docs/security.md#the-provider-record); a netid no company holds and a requester-only (CO) company's
   * answer the same 404, so the route tells nothing about who exists.
   */
  async recordOf(netid: string): Promise<ProviderRecord> {
    const company = /^[A-Za-z0-9_-]{1,64}$/.test(netid) ? await this.deps.companies.findByNetid(netid) : undefined;
    if (!company || !offersRides(company)) throw new NotFoundError("No company offering rides with this netid", "PROVIDER_NOT_FOUND");
    return (await this.recordsOf([company.netid])).get(company.netid)!;
  }

  /** The records of these providers (netids as stored), by netid. */
  async recordsOf(netids: readonly string[]): Promise<Map<string, ProviderRecord>> {
    const now = this.deps.clock.now();
    const out = new Map<string, ProviderRecord>();
    const missing: string[] = [];
    for (const netid of new Set(netids)) {
      const hit = this.kept.get(netid);
      if (hit && now - hit.at < RECORD_CACHE_SECONDS && hit.at <= now) out.set(netid, hit.record);
      else missing.push(netid);
    }
    if (missing.length === 0) return out;
    const since = now - RECORD_WINDOW_SECONDS;
    const rows = await this.deps.history.recentBookings(missing, since);
    const byProvider = new Map<string, OfferFacts[]>(missing.map((n) => [n.toLowerCase(), []]));
    // A booking offered to two of them is read once: each offer goes to its own provider's record.
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.transactionId)) continue;
      seen.add(row.transactionId);
      for (const offer of offersOf(row)) byProvider.get(offer.provider.toLowerCase())?.push(offer);
    }
    for (const netid of missing) {
      const record = providerRecordOf(byProvider.get(netid.toLowerCase()) ?? []);
      out.set(netid, record);
      if (this.kept.size >= MAX_CACHED) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(netid, { at: now, record });
    }
    return out;
  }
}
