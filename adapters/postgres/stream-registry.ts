import type { StreamRegistry } from "../../domain/events/live-events";
import type { PgDb } from "./db";

/**
 * Open event streams in PostgreSQL, shared by every instance. A claim counts the company's unexpired streams and
 * adds one in a transaction that holds the company's advisory lock, so two instances never both take the last place.
 */
export class PgStreamRegistry implements StreamRegistry {
  constructor(private readonly db: PgDb) {}

  async claim(netid: string, streamId: string, limit: number, nowSeconds: number, ttlSeconds: number): Promise<boolean> {
    return this.db.$client.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('live_streams:' || $1))", [netid]);
      await tx.unsafe("DELETE FROM live_streams WHERE netid = $1 AND expires_at < $2", [netid, nowSeconds]);
      const [{ n }] = await tx.unsafe("SELECT count(*)::int AS n FROM live_streams WHERE netid = $1", [netid]);
      if (Number(n) >= limit) return false;
      await tx.unsafe("INSERT INTO live_streams (id, netid, expires_at) VALUES ($1, $2, $3)", [streamId, netid, nowSeconds + ttlSeconds]);
      return true;
    });
  }

  async renew(streamIds: readonly string[], nowSeconds: number, ttlSeconds: number): Promise<void> {
    if (streamIds.length === 0) return;
    await this.db.$client.unsafe("UPDATE live_streams SET expires_at = $1 WHERE id = ANY($2::text[])", [nowSeconds + ttlSeconds, [...streamIds]]);
  }

  async release(streamId: string): Promise<void> {
    await this.db.$client.unsafe("DELETE FROM live_streams WHERE id = $1", [streamId]);
  }
}
