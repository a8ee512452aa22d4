import type { ProviderHistory, RecordBooking } from "../../domain/partners/provider-record";
import type { Db } from "./db";

/** Netids asked in one statement at most (SQLite's bound on parameters is far above it). */
const CHUNK = 500;

/**
 * The bookings a provider record reads (docs/terms.md#provider-record): every booking (not a quote) sent to these providers since
 * a time, with its status history, in one statement per 500 providers (the provider_id index narrows it).
 */
export class SqliteProviderHistory implements ProviderHistory {
  constructor(private readonly db: Db) {}

  async recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]> {
    const out: RecordBooking[] = [];
    for (let i = 0; i < netids.length; i += CHUNK) {
      const part = netids.slice(i, i + CHUNK);
      const rows = this.db.$client
        .query<RecordBooking, Array<string | number>>(
          "SELECT provider_id AS providerId, status, submit_date AS submitDate, pickup_date AS pickupDate, change_logs AS changeLogs " +
            `FROM bookings WHERE provider_id IN (${part.map(() => "?").join(", ")}) AND submit_date >= ? AND reservation_type <> 'QUOTE'`,
        )
        .all(...part, since);
      out.push(...rows);
    }
    return out;
  }
}
