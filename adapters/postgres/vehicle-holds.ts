import { blackoutRefusal, type BLACKOUT_LIMITS, type BlackoutRefusal } from "../../domain/fleet/holds";
import type { ClaimOutcome, HoldClaim, VehicleHold, VehicleHolds } from "../../domain/fleet/holds";
import { graceOf, holdCountArgs, holdCountSql, holdOf, liveBlackoutsOf, liveBlackoutsSql, liveHoldSql, overLimit } from "../sql/hold-sql";
import type { HoldRow } from "../sql/hold-sql";
import type { PgDb } from "./db";

type CountRow = { n: string; first_ends: string | null };

const INSERT =
  "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at, requester_netid) " +
  "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
const HOLD_COUNT = holdCountSql((n, bigint) => `$${n}${bigint ? "::bigint" : ""}`);
const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1, 19005))";

/** The advisory lock key of a vehicle: every claim and hold swap of it, and its deletion, take it. */
export const vehicleLockKey = (slug: string) => `vehicle:${slug}`;

/**
 * Vehicle holds in PostgreSQL, shared by every instance. A claim takes a transaction-scoped advisory lock on the
 * requester when it counts the requester's holds, then on the vehicle (keyed by its slug), then checks for an
 * overlapping live hold and inserts its own before committing: two claims for one vehicle, or two claims of one
 * requester with limits, on any instances, run one after the other, and the second sees the first's hold.
 */
export class PgVehicleHolds implements VehicleHolds {
  constructor(private readonly db: PgDb) {}

  async claim(c: HoldClaim, now: number): Promise<ClaimOutcome> {
    return this.db.$client.begin(async (tx): Promise<ClaimOutcome> => {
      if (c.limits) {
        // Always the requester before the vehicle: two claims never wait on each other's second lock.
        await tx.unsafe(LOCK, [`requester:${c.requester}`]);
        const [counted] = await tx.unsafe<Array<{ total: string; with_provider: string; soonest: string | null }>>(HOLD_COUNT, [
          ...holdCountArgs({ ...c, limits: c.limits }, now),
        ]);
        const over = overLimit(c, counted);
        if (over) return over;
      }
      await tx.unsafe(LOCK, [vehicleLockKey(c.slug)]);
      const clash = await tx.unsafe(
        `SELECT h.id FROM vehicle_holds h WHERE h.slug = $1 AND (h.transaction_id IS NULL OR h.transaction_id <> $2) ` +
          `AND h.starts_at < $3 AND h.ends_at > $4 AND ${liveHoldSql("$5", "$6")} LIMIT 1`,
        [c.slug, c.transactionId, c.to, c.from, graceOf(now), now],
      );
      if (clash.length > 0) return { kind: "taken" };
      await tx.unsafe("DELETE FROM vehicle_holds WHERE transaction_id = $1", [c.transactionId]);
      await tx.unsafe(INSERT, [crypto.randomUUID(), c.slug, c.provider, "BOOKING", c.transactionId, c.from, c.to, null, now, c.requester]);
      return { kind: "claimed" };
    }) as Promise<ClaimOutcome>;
  }

  async release(transactionId: string): Promise<void> {
    await this.db.$client.unsafe("DELETE FROM vehicle_holds WHERE transaction_id = $1", [transactionId]);
  }

  async liveHoldsOf(providers: readonly string[], after: number, now: number) {
    // By provider (the provider_ends index): a quote reads only the providers it may offer.
    const rows = await this.db.$client.unsafe<Array<{ provider: string; slug: string; from: string; to: string }>>(
      `SELECT h.provider_netid AS provider, h.slug, h.starts_at AS "from", h.ends_at AS "to" FROM vehicle_holds h ` +
        `WHERE h.provider_netid = ANY($4::text[]) AND h.ends_at > $1 AND ${liveHoldSql("$2", "$3")}`,
      [after, graceOf(now), now, providers],
    );
    return rows.map((r) => ({ provider: r.provider, slug: r.slug, from: Number(r.from), to: Number(r.to) }));
  }

  async scheduleOf(slug: string, from: number, to: number, now: number): Promise<VehicleHold[]> {
    const rows = await this.db.$client.unsafe<HoldRow[]>(
      `SELECT h.* FROM vehicle_holds h WHERE h.slug = $1 AND h.starts_at < $2 AND h.ends_at > $3 AND ${liveHoldSql("$4", "$5")} ` +
        "ORDER BY h.starts_at, h.id LIMIT 1000",
      [slug, to, from, graceOf(now), now],
    );
    return rows.map(holdOf);
  }

  async addBlackout(b: VehicleHold & { provider: string }, now: number, limits: typeof BLACKOUT_LIMITS): Promise<BlackoutRefusal | undefined> {
    return this.db.$client.begin(async (tx) => {
      // The provider's adds one after the other on every instance: the counts and the insert are one step.
      await tx.unsafe(LOCK, [`blackouts:${b.provider}`]);
      const count = async (column: "slug" | "provider_netid", key: string) =>
        liveBlackoutsOf((await tx.unsafe<CountRow[]>(liveBlackoutsSql(column, (n) => `$${n}`), [key, now]))[0]);
      const refusal = blackoutRefusal(await count("slug", b.slug), await count("provider_netid", b.provider), limits);
      if (refusal) return refusal;
      await tx.unsafe(INSERT, [b.id, b.slug, b.provider, "BLACKOUT", null, b.from, b.to, b.reason ?? null, now, null]);
      return undefined;
    }) as Promise<BlackoutRefusal | undefined>;
  }

  async blackoutsOf(slug: string): Promise<VehicleHold[]> {
    const rows = await this.db.$client.unsafe<HoldRow[]>(
      "SELECT h.* FROM vehicle_holds h WHERE h.slug = $1 AND h.kind = 'BLACKOUT' ORDER BY h.starts_at, h.id LIMIT 1000",
      [slug],
    );
    return rows.map(holdOf);
  }

  async removeBlackout(slug: string, id: string): Promise<boolean> {
    const rows = await this.db.$client.unsafe("DELETE FROM vehicle_holds WHERE slug = $1 AND id = $2 AND kind = 'BLACKOUT' RETURNING id", [slug, id]);
    return rows.length > 0;
  }
}
