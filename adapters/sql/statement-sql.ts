/** How each dialect writes the parts of the statement queries that differ: the n-th placeholder, a number as text. */
export interface StatementDialect {
  p: (n: number) => string;
  text: (expr: string) => string;
}

const ROW =
  'transaction_id AS "transactionId", requester_id AS "requesterId", requester_res_no AS "requesterResNo", provider_id AS "providerId", ' +
  `pickup_date AS "pickupDate", fare_final_at AS "fareFinalAt", status, CASE status WHEN 'CLOSE' THEN 'FARE' ELSE 'CANCELLATION_FEE' END AS kind, `;
const CURRENCY = `COALESCE(currency, 'XXX')`;

/**
 * The statement queries (docs/settlement.md#statements-and-settlement), both dialects: every one goes through the
 * partial indexes on settled bookings (bookings_settle_requester, bookings_settle_provider), one per direction.
 */
export function statementSql(d: StatementDialect) {
  const row = (units: string) => `${ROW}${d.text(units)} AS units, ${CURRENCY} AS currency FROM bookings`;
  const direction = (who: string, other: string) =>
    `SELECT ${row("settle_units")} WHERE settle_units IS NOT NULL AND ${who} = ${d.p(1)} AND pickup_date >= ${d.p(3)} ` +
    `AND pickup_date < ${d.p(4)} AND ${other} = ${d.p(2)}`;
  const sums = (who: string, other: string, role: string) =>
    `SELECT ${other} AS counterparty, '${role}' AS role, ${CURRENCY} AS currency, ${d.text("SUM(settle_units)")} AS units, ` +
    `COUNT(*) AS lines FROM bookings WHERE settle_units IS NOT NULL AND ${who} = ${d.p(1)} AND pickup_date >= ${d.p(2)} ` +
    `AND pickup_date < ${d.p(3)} GROUP BY ${other}, ${CURRENCY}`;
  const any = (who: string, other: string) => `SELECT 1 FROM bookings WHERE settle_units IS NOT NULL AND ${who} = ${d.p(1)} AND ${other} = ${d.p(2)}`;
  return {
    /** $1 me, $2 them, $3 start, $4 end. */
    between: `${direction("requester_id", "provider_id")} UNION ALL ${direction("provider_id", "requester_id")}`,
    /** $1 a, $2 b. */
    any: `SELECT EXISTS (${any("requester_id", "provider_id")}) OR EXISTS (${any("provider_id", "requester_id")}) AS found`,
    /** $1 me, $2 start, $3 end. */
    sums: `${sums("requester_id", "provider_id", "requester")} UNION ALL ${sums("provider_id", "requester_id", "provider")}`,
    /** $1 transactionId. */
    row: `SELECT ${row("settle_units")} WHERE transaction_id = ${d.p(1)} AND settle_units IS NOT NULL`,
    parties: `SELECT requester_id AS "requesterId", provider_id AS "providerId", pickup_date AS "pickupDate" FROM bookings WHERE transaction_id = ${d.p(1)}`,
    /** $1 netid. */
    zone: `SELECT lat, lon FROM fleet_entries WHERE netid = ${d.p(1)} AND lat IS NOT NULL AND lon IS NOT NULL ORDER BY slug LIMIT 1`,
  };
}

const DISPUTE =
  'id, transaction_id AS "transactionId", requester_id AS "requesterId", provider_id AS "providerId", period, raised_by AS "raisedBy", ' +
  'reason, raised_at AS "raisedAt", state, answer, answered_at AS "answeredAt"';

/** The dispute queries (docs/settlement.md#states-and-disputes), both dialects. */
export function disputeSql(d: Pick<StatementDialect, "p">) {
  const pair = (a: string, b: string) => `(requester_id = ${d.p(a === "1" ? 1 : 2)} AND provider_id = ${d.p(b === "1" ? 1 : 2)} AND period = ${d.p(3)})`;
  return {
    insert:
      `INSERT INTO statement_disputes (id, transaction_id, requester_id, provider_id, period, raised_by, reason, raised_at, state) ` +
      `VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map(d.p).join(", ")}, 'OPEN') ON CONFLICT DO NOTHING`,
    get: `SELECT ${DISPUTE} FROM statement_disputes WHERE id = ${d.p(1)}`,
    end: `UPDATE statement_disputes SET state = ${d.p(2)}, answer = ${d.p(3)}, answered_at = ${d.p(4)} WHERE id = ${d.p(1)} AND state = 'OPEN'`,
    /** $1 a, $2 b, $3 period. */
    between: `SELECT ${DISPUTE} FROM statement_disputes WHERE ${pair("1", "2")} OR ${pair("2", "1")} ORDER BY raised_at, id`,
    /** $1 me, $2 period. */
    openOf:
      `SELECT ${DISPUTE} FROM statement_disputes WHERE requester_id = ${d.p(1)} AND period = ${d.p(2)} AND state = 'OPEN' ` +
      `UNION ALL SELECT ${DISPUTE} FROM statement_disputes WHERE provider_id = ${d.p(1)} AND period = ${d.p(2)} AND state = 'OPEN'`,
  };
}
