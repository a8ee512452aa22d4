import { ConflictError } from "../../domain/errors";
import { isoAt } from "../../domain/trips/booking";
import {
  PENDING_HOLD_GRACE_SECONDS,
  RELEASING_STATUSES,
  type ClaimOutcome,
  type HoldClaim,
  type LiveBlackoutCount,
  type VehicleHold,
} from "../../domain/fleet/holds";
import { UNACCEPTED_STATUSES } from "../../domain/trips/offers";

const RELEASING = RELEASING_STATUSES.map((s) => `'${s}'`).join(", ");
const UNACCEPTED = UNACCEPTED_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * The SQL condition that a row `h` of vehicle_holds is live (docs/availability.md), both databases: a blackout; a booking
 * hold whose booking is live (a QUOTE being converted only within the grace; an unaccepted booking only until its
 * offer lapses, docs/availability.md#until-acceptance-holds-lapse-at-acceptby); or a fresh claim whose booking is being
 * written. `grace` is the placeholder of the Unix second before which a claim is stale, `now` of the current second.
 * An unaccepted booking's `offer_due` is its acceptBy (domain/trips/offers.ts:offerDue).
 */
export function liveHoldSql(grace: string, now: string): string {
  return (
    `(h.kind = 'BLACKOUT' OR EXISTS (SELECT 1 FROM bookings b WHERE b.transaction_id = h.transaction_id ` +
    `AND b.status NOT IN (${RELEASING}) AND (b.status <> 'QUOTE' OR h.created_at > ${grace}) ` +
    `AND (b.status NOT IN (${UNACCEPTED}) OR b.offer_due IS NULL OR b.offer_due > ${now})) ` +
    `OR (h.created_at > ${grace} AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.transaction_id = h.transaction_id)))`
  );
}

/**
 * Counts a requester's live unaccepted holds other than `transactionId`'s (docs/availability.md#hold-limits), both
 * databases: a fresh claim whose booking is being written, a QUOTE being converted within the grace, an unaccepted
 * booking before its acceptBy — each still to end. At most `max` rows are read (the requester's index). Arguments:
 * holdCountArgs'. Answers `total`, `with_provider` (those with the claim's provider), `soonest` (the first acceptBy).
 */
export function holdCountSql(p: (n: number, bigint?: boolean) => string): string {
  return (
    "SELECT count(*) AS total, coalesce(sum(CASE WHEN x.provider = " + p(2) + " THEN 1 ELSE 0 END), 0) AS with_provider, " +
    "min(x.due) AS soonest FROM (SELECT h.provider_netid AS provider, b.offer_due AS due FROM vehicle_holds h " +
    "LEFT JOIN bookings b ON b.transaction_id = h.transaction_id " +
    `WHERE h.requester_netid = ${p(1)} AND h.kind = 'BOOKING' AND h.ends_at > ${p(4, true)} AND h.transaction_id <> ${p(3)} ` +
    `AND ((b.transaction_id IS NULL AND h.created_at > ${p(5, true)}) OR (b.status = 'QUOTE' AND h.created_at > ${p(5, true)}) ` +
    `OR (b.status IN (${UNACCEPTED}) AND (b.offer_due IS NULL OR b.offer_due > ${p(4, true)}))) LIMIT ${p(6, true)}) x`
  );
}

/** The arguments of holdCountSql for a claim with limits. */
export function holdCountArgs(c: HoldClaim & { limits: NonNullable<HoldClaim["limits"]> }, now: number) {
  return [c.requester, c.provider, c.transactionId, now, graceOf(now), c.limits.total + 1] as const;
}

/** What holdCountSql's row says of a claim: undefined when it is within its limits. */
export function overLimit(
  c: HoldClaim,
  row: { total: number | string; with_provider: number | string; soonest: number | string | null } | undefined,
): Extract<ClaimOutcome, { kind: "limit" }> | undefined {
  if (!c.limits || !row) return undefined;
  const soonest = row.soonest === null ? null : Number(row.soonest);
  if (Number(row.with_provider) >= c.limits.perProvider) return { kind: "limit", scope: "provider", limit: c.limits.perProvider, soonest };
  if (Number(row.total) >= c.limits.total) return { kind: "limit", scope: "all", limit: c.limits.total, soonest };
  return undefined;
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

/**
 * The live booking holds of these vehicles (at most 100, by slug): what refuses deleting a vehicle
 * (docs/availability.md#a-held-vehicle-cannot-be-deleted). `slugs` is the placeholder of the list as the dialect
 * passes one, `grace` and `now` as liveHoldSql's.
 */
export function heldVehiclesSql(slugs: string, grace: string, now: string): string {
  return (
    `SELECT h.slug, h.transaction_id FROM vehicle_holds h WHERE h.kind = 'BOOKING' AND h.slug IN (${slugs}) ` +
    `AND ${liveHoldSql(grace, now)} ORDER BY h.slug LIMIT 100`
  );
}

/** The message a cascade move's hold swap fails with when the next vehicle is taken (mapped to VEHICLE_UNAVAILABLE). */
export const HOLD_TAKEN = "vehicle hold taken by another booking";

/**
 * A move's hold swap inside the booking's transaction (docs/terms.md#the-cascade-fallback), both databases: the booking's own hold is
 * deleted, then the next vehicle's is inserted unless a live hold of another booking or a blackout overlaps it (no
 * row inserted: the caller rolls the whole change back). `p(n, bigint)` writes the dialect's n-th placeholder (typed
 * where the dialect needs it); the arguments are holdSwapArgs'.
 */
export function holdSwapSql(p: (n: number, bigint?: boolean) => string): { remove: string; insert: string } {
  return {
    remove: `DELETE FROM vehicle_holds WHERE transaction_id = ${p(1)}`,
    insert:
      "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at, requester_netid) " +
      `SELECT ${p(1)}, ${p(2)}, ${p(3)}, 'BOOKING', ${p(4)}, ${p(5, true)}, ${p(6, true)}, NULL, ${p(7, true)}, ${p(9)} ` +
      "WHERE NOT EXISTS (SELECT 1 FROM vehicle_holds h " +
      `WHERE h.slug = ${p(2)} AND (h.transaction_id IS NULL OR h.transaction_id <> ${p(4)}) AND h.starts_at < ${p(6, true)} AND h.ends_at > ${p(5, true)} ` +
      `AND ${liveHoldSql(p(8, true), p(7, true))})`,
  };
}

/** The arguments of holdSwapSql's insert (the delete takes the transactionId alone). */
export function holdSwapArgs(h: { slug: string; provider: string; requester: string; transactionId: string; from: number; to: number; at: number }) {
  return [crypto.randomUUID(), h.slug, h.provider, h.transactionId, h.from, h.to, h.at, graceOf(h.at), h.requester] as const;
}

/** The change's answer when its hold swap found the vehicle taken: 409 VEHICLE_UNAVAILABLE, nothing of it kept. */
export function holdTaken(h: { slug: string; from: number; to: number }): ConflictError {
  return new ConflictError(`The vehicle ${h.slug} is no longer available at that time`, "VEHICLE_UNAVAILABLE", {
    vehicle: h.slug,
    from: isoAt(h.from),
    to: isoAt(h.to),
  });
}

/** Providers named in one read of their live holds (one statement's list stays short). */
export const PROVIDERS_PER_READ = 500;

/**
 * A vehicle's (`slug`) or a provider's (`provider_netid`) live blackouts, both databases: how many end after the
 * second given, and the earliest end; read from the (slug, ends_at) index and the partial index of blackouts by
 * provider. `p(n)` writes the dialect's n-th placeholder: the slug or netid, then the second.
 */
export function liveBlackoutsSql(column: "slug" | "provider_netid", p: (n: number) => string): string {
  return (
    `SELECT count(*) AS n, min(ends_at) AS first_ends FROM vehicle_holds ` +
    `WHERE ${column} = ${p(1)} AND kind = 'BLACKOUT' AND ends_at > ${p(2)}`
  );
}

/** liveBlackoutsSql's row as the domain counts it. */
export function liveBlackoutsOf(row: { n: number | string; first_ends: number | string | null } | undefined): LiveBlackoutCount {
  return { live: Number(row?.n ?? 0), firstEnds: Number(row?.first_ends ?? 0) };
}
