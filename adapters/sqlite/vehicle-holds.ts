import { blackoutRefusal, type BLACKOUT_LIMITS, type BlackoutRefusal } from "../../domain/fleet/holds";
import type { ClaimOutcome, HoldClaim, VehicleHold, VehicleHolds } from "../../domain/fleet/holds";
import { inList } from "./in-list";
import { graceOf, holdCountArgs, holdCountSql, holdOf, liveBlackoutsOf, liveBlackoutsSql, liveHoldSql, overLimit, PROVIDERS_PER_READ } from "../sql/hold-sql";
import type { HoldRow } from "../sql/hold-sql";
import type { Db } from "./db";

type CountRow = { n: number; first_ends: number | null };

const HOLD_COUNT = holdCountSql((n) => `?${n}`);

/**
 * Vehicle holds in SQLite. A claim counts the requester's unaccepted holds, checks for an overlapping live hold and
 * inserts its own in one IMMEDIATE transaction: SQLite's single writer (every process on the file waits for it)
 * makes the count, the check and the write one step.
 */
export class SqliteVehicleHolds implements VehicleHolds {
  constructor(private readonly db: Db) {}

  async claim(c: HoldClaim, now: number): Promise<ClaimOutcome> {
    const client = this.db.$client;
    const run = client.transaction((): ClaimOutcome => {
      if (c.limits) {
        const counted = client
          .query<{ total: number; with_provider: number; soonest: number | null }, [string, string, string, number, number, number]>(HOLD_COUNT)
          .get(...holdCountArgs({ ...c, limits: c.limits }, now));
        const over = overLimit(c, counted ?? undefined);
        if (over) return over;
      }
      const clash = client
        .query<{ id: string }, [string, string, number, number, number, number]>(
          `SELECT h.id FROM vehicle_holds h WHERE h.slug = ?1 AND (h.transaction_id IS NULL OR h.transaction_id <> ?2) ` +
            `AND h.starts_at < ?3 AND h.ends_at > ?4 AND ${liveHoldSql("?5", "?6")} LIMIT 1`,
        )
        .get(c.slug, c.transactionId, c.to, c.from, graceOf(now), now);
      if (clash) return { kind: "taken" };
      client.query("DELETE FROM vehicle_holds WHERE transaction_id = ?").run(c.transactionId);
      client
        .query(
          "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at, requester_netid) " +
            "VALUES (?, ?, ?, 'BOOKING', ?, ?, ?, NULL, ?, ?)",
        )
        .run(crypto.randomUUID(), c.slug, c.provider, c.transactionId, c.from, c.to, now, c.requester);
      return { kind: "claimed" };
    });
    return run.immediate();
  }

  async release(transactionId: string): Promise<void> {
    this.db.$client.query("DELETE FROM vehicle_holds WHERE transaction_id = ?").run(transactionId);
  }

  async liveHoldsOf(providers: readonly string[], after: number, now: number) {
    const client = this.db.$client;
    const rows: Array<{ provider: string; slug: string; from: number; to: number }> = [];
    // By provider (the provider_ends index): a quote reads only the providers it may offer.
    for (let i = 0; i < providers.length; i += PROVIDERS_PER_READ) {
      const { placeholders: list, args: some } = inList(providers.slice(i, i + PROVIDERS_PER_READ), 4, PROVIDERS_PER_READ);
      rows.push(
        ...client
          .query<{ provider: string; slug: string; from: number; to: number }, Array<string | number>>(
            `SELECT h.provider_netid AS provider, h.slug AS slug, h.starts_at AS "from", h.ends_at AS "to" FROM vehicle_holds h ` +
              `WHERE h.provider_netid IN (${list}) AND h.ends_at > ?1 AND ${liveHoldSql("?2", "?3")}`,
          )
          .all(after, graceOf(now), now, ...some),
      );
    }
    return rows;
  }

  async scheduleOf(slug: string, from: number, to: number, now: number): Promise<VehicleHold[]> {
    return this.db.$client
      .query<HoldRow, [string, number, number, number, number]>(
        `SELECT h.* FROM vehicle_holds h WHERE h.slug = ?1 AND h.starts_at < ?2 AND h.ends_at > ?3 AND ${liveHoldSql("?4", "?5")} ` +
          "ORDER BY h.starts_at, h.id LIMIT 1000",
      )
      .all(slug, to, from, graceOf(now), now)
      .map(holdOf);
  }

  async addBlackout(b: VehicleHold & { provider: string }, now: number, limits: typeof BLACKOUT_LIMITS): Promise<BlackoutRefusal | undefined> {
    const client = this.db.$client;
    // One IMMEDIATE transaction: the count and the insert are one step for every process on the file.
    const run = client.transaction((): BlackoutRefusal | undefined => {
      const count = (column: "slug" | "provider_netid", key: string) =>
        liveBlackoutsOf(client.query<CountRow, [string, number]>(liveBlackoutsSql(column, (n) => `?${n}`)).get(key, now) ?? undefined);
      const refusal = blackoutRefusal(count("slug", b.slug), count("provider_netid", b.provider), limits);
      if (refusal) return refusal;
      client
        .query(
          "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at) " +
            "VALUES (?, ?, ?, 'BLACKOUT', NULL, ?, ?, ?, ?)",
        )
        .run(b.id, b.slug, b.provider, b.from, b.to, b.reason ?? null, now);
      return undefined;
    });
    return run.immediate();
  }

  async blackoutsOf(slug: string): Promise<VehicleHold[]> {
    return this.db.$client
      .query<HoldRow, [string]>("SELECT h.* FROM vehicle_holds h WHERE h.slug = ? AND h.kind = 'BLACKOUT' ORDER BY h.starts_at, h.id LIMIT 1000")
      .all(slug)
      .map(holdOf);
  }

  async removeBlackout(slug: string, id: string): Promise<boolean> {
    return this.db.$client.query("DELETE FROM vehicle_holds WHERE slug = ? AND id = ? AND kind = 'BLACKOUT'").run(slug, id).changes > 0;
  }
}
