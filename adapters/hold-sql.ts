import { PENDING_HOLD_GRACE_SECONDS, RELEASING_STATUSES, type VehicleHold } from "../domain/fleet/holds";

const RELEASING = RELEASING_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * The SQL condition that a row `h` of vehicle_holds is live (CONTRACT §19.5), both databases: a blackout; a booking
 * hold whose booking is live (a QUOTE being converted only within the grace); or a fresh claim whose booking is being
 * written. `grace` is the placeholder of the Unix second before which a claim is stale.
 */
export function liveHoldSql(grace: string): string {
  return (
    `(h.kind = 'BLACKOUT' OR EXISTS (SELECT 1 FROM bookings b WHERE b.transaction_id = h.transaction_id ` +
    `AND b.status NOT IN (${RELEASING}) AND (b.status <> 'QUOTE' OR h.created_at > ${grace})) ` +
    `OR (h.created_at > ${grace} AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.transaction_id = h.transaction_id)))`
  );
}

export const graceOf = (now: number) => now - PENDING_HOLD_GRACE_SECONDS;

export interface HoldRow {
  id: string;
  slug: string;
  kind: string;
  transaction_id: string | null;
  starts_at: number | string;
  ends_at: number | string;
  reason: string | null;
}

export function holdOf(r: HoldRow): VehicleHold {
  return {
    id: r.id,
    slug: r.slug,
    kind: r.kind === "BLACKOUT" ? "BLACKOUT" : "BOOKING",
    ...(r.transaction_id ? { transactionId: r.transaction_id } : {}),
    from: Number(r.starts_at),
    to: Number(r.ends_at),
    ...(r.reason ? { reason: r.reason } : {}),
  };
}
