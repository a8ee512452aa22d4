import type { StreamRegistry } from "../../domain/events/live-events";
import type { PgDb } from "./db";

/**
 * Event streams in PostgreSQL, shared by every instance: open ones (unexpired claims) and, until retention prunes
 * them, recent ones (which companies follow their positions). A claim counts the company's unexpired streams, ends
 * the oldest past the limit and adds one in a transaction that holds the company's advisory lock, so the limit holds
 * however instances race.
 */
export class PgStreamRegistry implements StreamRegistry {
  constructor(private readonly db: PgDb) {}

  async claim(netid: string, streamId: string, limit: number, nowSeconds: number, ttlSeconds: number): Promise<string[]> {
    return this.db.$client.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext('live_streams:' || $1))", [netid]);
      const open: Array<{ id: string }> = await tx.unsafe("SELECT id FROM live_streams WHERE netid = $1 AND expires_at >= $2 ORDER BY id", [netid, nowSeconds]);
      // The oldest make room (ids sort in the order streams opened); their instances see the claim gone and end them.
      const ended = open.slice(0, Math.max(0, open.length - limit + 1)).map((r) => r.id);
      if (ended.length > 0) await tx.unsafe("UPDATE live_streams SET expires_at = $2 WHERE id = ANY($1::text[])", [ended, nowSeconds - 1]);
      await tx.unsafe("INSERT INTO live_streams (id, netid, expires_at) VALUES ($1, $2, $3)", [streamId, netid, nowSeconds + ttlSeconds]);
      return ended;
    });
  }

  async ended(streamIds: readonly string[], nowSeconds: number): Promise<string[]> {
    if (streamIds.length === 0) return [];
    const held: Array<{ id: string }> = await this.db.$client.unsafe("SELECT id FROM live_streams WHERE id = ANY($1::text[]) AND expires_at >= $2", [
      [...streamIds],
      nowSeconds,
    ]);
    const alive = new Set(held.map((r) => r.id));
    return streamIds.filter((id) => !alive.has(id));
  }

  async renew(streamIds: readonly string[], nowSeconds: number, ttlSeconds: number): Promise<void> {
    if (streamIds.length === 0) return;
    // A claim another stream ended stays ended (its instance ends the stream at its next check).
    await this.db.$client.unsafe("UPDATE live_streams SET expires_at = $1 WHERE id = ANY($2::text[]) AND expires_at >= $3", [
      nowSeconds + ttlSeconds,
      [...streamIds],
      nowSeconds,
    ]);
  }

  async release(streamId: string, nowSeconds: number): Promise<void> {
    await this.db.$client.unsafe("UPDATE live_streams SET expires_at = $2 WHERE id = $1", [streamId, nowSeconds]);
  }

  async followers(sinceSeconds: number): Promise<string[]> {
    const rows: Array<{ netid: string }> = await this.db.$client.unsafe("SELECT DISTINCT netid FROM live_streams WHERE expires_at > $1", [sinceSeconds]);
    return rows.map((r) => r.netid);
  }
}
