import type { ProviderHistory, RecordBooking } from "../../domain/partners/provider-record";
import { recordBooking, recordBookingsSql, type RecordRow } from "../sql/record-sql";
import type { PgDb } from "./db";

const RECORD_SQL = recordBookingsSql({
  providers: "= ANY($1::text[])",
  since: "$2",
  offers: (packet) => `(${packet}::json -> 'offers')::text`,
  arrivedAt: (packet) => `(${packet}::json -> 'clock' ->> 'arrivedAt')`,
});

/**
 * The bookings a provider record reads (docs/terms.md#provider-record): every booking (not a quote) sent to these
 * providers since a time, or offered to them before the cascade moved it on, with its status history and offers, in
 * one statement for all of them (the provider_id indexes narrow it).
 */
export class PgProviderHistory implements ProviderHistory {
  constructor(private readonly db: PgDb) {}

  async recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]> {
    if (netids.length === 0) return [];
    const rows: Array<RecordRow & { submitDate: string | number; pickupDate: string | number }> = await this.db.$client.unsafe(RECORD_SQL, [
      netids as string[],
      since,
    ]);
    return rows.map((r) => recordBooking({ ...r, submitDate: Number(r.submitDate), pickupDate: Number(r.pickupDate) }));
  }
}
