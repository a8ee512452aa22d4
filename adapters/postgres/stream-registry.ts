import type { StreamRegistry } from "../../domain/events/live-events";
import type { PgDb } from "./db";

/**
 * Event streams in PostgreSQL, shared by every instance: open ones (unexpired claims) and, until retention prunes
 * them, recent ones (which companies follow their positions). A claim counts the company's unexpired streams and
 * adds one in a transaction that holds the company's advisory lock, so two instances never both take the last place.
 */
export class PgStreamRegistry implements StreamRegistry {
  constructor(private readonly db: PgDb) {}

  async claim(netid: string, streamId: string, limit: number, nowSeconds: number, ttlSeconds: number): Promise<boolean> {
    return this.db.$client.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('live_streams:' || $1))", [netid]);
      const [{ n }] = await tx.unsafe("SELECT count(*)::int AS n FROM live_streams WHERE netid = $1 AND expires_at >= $2", [netid, nowSeconds]);
      if (Number(n) >= limit) return false;
      await tx.unsafe("INSERT INTO live_streams (id, netid, expires_at) VALUES ($1, $2, $3)", [streamId, netid, nowSeconds + ttlSeconds]);
      return true;
    });
  }

  async renew(streamIds: readonly string[], nowSeconds: number, ttlSeconds: number): Promise<void> {
    if (streamIds.length === 0) return;
    await this.db.$client.unsafe("UPDATE live_streams SET expires_at = $1 WHERE id = ANY($2::text[])", [nowSeconds + ttlSeconds, [...streamIds]]);
  }

  async release(streamId: string, nowSeconds: number): Promise<void> {
    await this.db.$client.unsafe("UPDATE live_streams SET expires_at = $2 WHERE id = $1", [streamId, nowSeconds]);
  }

  async followers(sinceSeconds: number): Promise<string[]> {
    const rows: Array<{ netid: string }> = await this.db.$client.unsafe("SELECT DISTINCT netid FROM live_streams WHERE expires_at > $1", [sinceSeconds]);
    return rows.map((r) => r.netid);
  }
}
