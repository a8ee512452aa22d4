import { and, eq, lte } from "drizzle-orm";
import type { IdempotencyStore, Reservation, StoredResult } from "../../domain/trips/ports";
import type { PgDb } from "./db";
import { idempotencyKeys } from "./schema";

/** A reservation's status while its request runs (no HTTP status is 0). */
const IN_PROGRESS = 0;
/** Rounds of insert / take over / read: a key released or expired between two of them is tried again. */
const MAX_ROUNDS = 5;

/**
 * Idempotency-Key results in PostgreSQL, scoped per company, kept for `ttlSeconds`, shared by every instance. A
 * key is reserved with one atomic insert (`ON CONFLICT DO NOTHING`), so of two requests with the key on any
 * instances exactly one runs; a reservation whose instance died is taken over after `leaseSeconds` by one atomic
 * update.
 */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: PgDb,
    private readonly ttlSeconds = 24 * 3600,
    private readonly leaseSeconds = 120,
  ) {}

  /** Claims (netid, key) for a request about to run, or says what holds it. Expired keys are pruned on the way. */
  async reserve(netid: string, key: string, requestHash: string, now: number): Promise<Reservation> {
    await this.db.delete(idempotencyKeys).where(lte(idempotencyKeys.createdAt, now - this.ttlSeconds));
    const theKey = and(eq(idempotencyKeys.netid, netid), eq(idempotencyKeys.key, key));
    for (let round = 1; ; round++) {
      const inserted = await this.db
        .insert(idempotencyKeys)
        .values({ netid, key, requestHash, status: IN_PROGRESS, body: "", createdAt: now })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (inserted.length > 0) return { kind: "reserved" };
      // A reservation older than the lease belongs to a request that died: take it over, atomically.
      const taken = await this.db
        .update(idempotencyKeys)
        .set({ requestHash, status: IN_PROGRESS, body: "", createdAt: now })
        .where(and(theKey, eq(idempotencyKeys.status, IN_PROGRESS), lte(idempotencyKeys.createdAt, now - this.leaseSeconds)))
        .returning({ key: idempotencyKeys.key });
      if (taken.length > 0) return { kind: "reserved" };
      const [hit] = await this.db
        .select({ requestHash: idempotencyKeys.requestHash, status: idempotencyKeys.status, body: idempotencyKeys.body, createdAt: idempotencyKeys.createdAt })
        .from(idempotencyKeys)
        .where(theKey)
        .limit(1);
      if (hit && hit.status !== IN_PROGRESS) return { kind: "stored", result: hit };
      if (hit && hit.createdAt > now - this.leaseSeconds) return { kind: "in-progress", requestHash: hit.requestHash };
      // Released (or taken over and released) meanwhile: try again, a bounded number of times.
      if (round >= MAX_ROUNDS) return hit ? { kind: "in-progress", requestHash: hit.requestHash } : { kind: "in-progress", requestHash };
    }
  }

  /** Stores the result of a reserved key's request (replayed from now on). */
  async complete(netid: string, key: string, result: StoredResult, now: number): Promise<void> {
    await this.db
      .update(idempotencyKeys)
      .set({ requestHash: result.requestHash, status: result.status, body: result.body, createdAt: now })
      .where(and(eq(idempotencyKeys.netid, netid), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, IN_PROGRESS)));
  }

  /** Gives a reserved key up (its request failed unexpectedly): the next request with it runs. */
  async release(netid: string, key: string): Promise<void> {
    await this.db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.netid, netid), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, IN_PROGRESS)));
  }
}

