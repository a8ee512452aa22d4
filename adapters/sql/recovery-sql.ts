import type { CostRecoveryRecord } from "../../domain/trips/booking";

/**
 * Cost recoveries' SQL, the same on both databases (docs/settlement.md#give-back-recovery): the insert a give-back's
 * transaction runs (a booking owes at most one), and the reads statements make by company pair and pickup period.
 * `p(n)` writes the dialect's n-th placeholder.
 */
const COLUMNS =
  "transaction_id AS \"transactionId\", requester_id AS \"requesterId\", provider_id AS \"providerId\", amount_minor AS \"amountMinor\", " +
  "currency, percent, pickup_date AS \"pickupDate\", recorded_at AS \"recordedAt\", waived";

export function recoverySql(p: (n: number) => string): { insert: string; between: string; of: string } {
  return {
    insert:
      "INSERT INTO cost_recoveries (transaction_id, requester_id, provider_id, amount_minor, currency, percent, pickup_date, recorded_at, waived) " +
      `VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9].map(p).join(", ")}) ON CONFLICT (transaction_id) DO NOTHING`,
    // Both directions, each by its index (requester, provider, pickup).
    between:
      `SELECT ${COLUMNS} FROM cost_recoveries WHERE requester_id = ${p(1)} AND provider_id = ${p(2)} AND pickup_date >= ${p(3)} AND pickup_date < ${p(4)} ` +
      `UNION ALL SELECT ${COLUMNS} FROM cost_recoveries WHERE requester_id = ${p(2)} AND provider_id = ${p(1)} ` +
      `AND pickup_date >= ${p(3)} AND pickup_date < ${p(4)} ORDER BY "pickupDate", "transactionId"`,
    of:
      `SELECT ${COLUMNS} FROM cost_recoveries WHERE requester_id = ${p(1)} AND pickup_date >= ${p(2)} AND pickup_date < ${p(3)} ` +
      `UNION ALL SELECT ${COLUMNS} FROM cost_recoveries WHERE provider_id = ${p(1)} AND requester_id <> ${p(1)} ` +
      `AND pickup_date >= ${p(2)} AND pickup_date < ${p(3)} ORDER BY "pickupDate", "transactionId"`,
  };
}

/** The insert's arguments. */
export function recoveryArgs(r: CostRecoveryRecord, waived: (w: boolean) => boolean | number) {
  return [r.transactionId, r.requesterId, r.providerId, r.amountMinor, r.currency, r.percent, r.pickupDate, r.recordedAt, waived(r.waived)] as const;
}

/** A row as either database returns it (bigint columns may come back as strings, booleans as 0/1). */
export function recoveryOf(row: Record<string, unknown>): CostRecoveryRecord {
  return {
    transactionId: String(row.transactionId),
    requesterId: String(row.requesterId),
    providerId: String(row.providerId),
    amountMinor: Number(row.amountMinor),
    currency: String(row.currency),
    percent: Number(row.percent),
    pickupDate: Number(row.pickupDate),
    recordedAt: Number(row.recordedAt),
    waived: row.waived === true || row.waived === 1 || row.waived === "1" || row.waived === "t",
  };
}
