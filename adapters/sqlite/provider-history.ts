import type { ProviderHistory, RecordBooking } from "../../domain/partners/provider-record";
import { recordBooking, recordBookingsSql, type RecordRow } from "../sql/record-sql";
import type { Db } from "./db";

/** Netids asked in one statement at most (SQLite's bound on parameters is far above it). */
const CHUNK = 500;

/**
 * The bookings a provider record reads (docs/terms.md#provider-record): every booking (not a quote) sent to these
 * providers since a time, or offered to them before the cascade moved it on, with its status history and offers, in
 * one statement per 500 providers (the provider_id indexes narrow it).
 */
export class SqliteProviderHistory implements ProviderHistory {
  constructor(private readonly db: Db) {}

  async recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]> {
    const out: RecordBooking[] = [];
    for (let i = 0; i < netids.length; i += CHUNK) {
      const part = netids.slice(i, i + CHUNK);
      const sqlText = recordBookingsSql({
        providers: `IN (${part.map((_, n) => `?${n + 1}`).join(", ")})`,
        since: `?${part.length + 1}`,
        offers: (packet) => `json_extract(${packet}, '$.offers')`,
        arrivedAt: (packet) => `json_extract(${packet}, '$.clock.arrivedAt')`,
      });
      out.push(...this.db.$client.query<RecordRow, Array<string | number>>(sqlText).all(...part, since).map(recordBooking));
    }
    return out;
  }
}
