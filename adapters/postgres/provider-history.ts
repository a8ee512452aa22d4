import type { ProviderHistory, RecordBooking } from "../../domain/partners/provider-record";
import type { PgDb } from "./db";

/**
 * The bookings a provider record reads (docs/terms.md#provider-record): every booking (not a quote) sent to these providers since
 * a time, with its status history, in one statement for all of them (the provider_id index narrows it).
 */
export class PgProviderHistory implements ProviderHistory {
  constructor(private readonly db: PgDb) {}

  async recentBookings(netids: readonly string[], since: number): Promise<RecordBooking[]> {
    if (netids.length === 0) return [];
    const rows: Array<{ providerId: string; status: string; submitDate: string | number; pickupDate: string | number; changeLogs: string }> =
      await this.db.$client.unsafe(
        'SELECT provider_id AS "providerId", status, submit_date AS "submitDate", pickup_date AS "pickupDate", change_logs AS "changeLogs" ' +
          "FROM bookings WHERE provider_id = ANY($1::text[]) AND submit_date >= $2 AND reservation_type <> 'QUOTE'",
        [netids as string[], since],
      );
    return rows.map((r) => ({ ...r, submitDate: Number(r.submitDate), pickupDate: Number(r.pickupDate) }));
  }
}
