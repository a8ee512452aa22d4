import { and, eq, lte, sql } from "drizzle-orm";
import type { IdempotencyStore, Reservation, StoredResult } from "../../domain/trips/ports";
import type { Db } from "./db";
import { idempotencyKeys } from "./schema";

const ph = (name: string) => sql.placeholder(name);

/** A reservation's status while its request runs (no HTTP status is 0). */
const IN_PROGRESS = 0;

/**
 * Idempotency-Key results, scoped per company, kept for `ttlSeconds`. A key is reserved before its request
 * runs, in a write transaction, so a second request with the key — in this process or another — sees it at
 * once; a reservation whose process died is taken over after `leaseSeconds`.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly find;

  constructor(
    private readonly db: Db,
    private readonly ttlSeconds = 24 * 3600,
    private readonly leaseSeconds = 120,
  ) {
    this.find = db
      .select({ requestHash: idempotencyKeys.requestHash, status: idempotencyKeys.status, body: idempotencyKeys.body, createdAt: idempotencyKeys.createdAt })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.netid, ph("netid")), eq(idempotencyKeys.key, ph("key"))))
      .prepare();
  }

  /** Claims (netid, key) for a request about to run, or says what holds it. Expired keys are pruned on the way. */
  async reserve(netid: string, key: string, requestHash: string, now: number): Promise<Reservation> {
    return this.db.transaction(
      (tx) => {
        tx.delete(idempotencyKeys).where(lte(idempotencyKeys.createdAt, now - this.ttlSeconds)).run();
        const hit = this.find.get({ netid, key });
        if (hit && hit.status !== IN_PROGRESS) return { kind: "stored", result: hit };
        if (hit && hit.createdAt > now - this.leaseSeconds) return { kind: "in-progress", requestHash: hit.requestHash };
        tx.insert(idempotencyKeys)
          .values({ netid, key, requestHash, status: IN_PROGRESS, body: "", createdAt: now })
          .onConflictDoUpdate({ target: [idempotencyKeys.netid, idempotencyKeys.key], set: { requestHash, status: IN_PROGRESS, body: "", createdAt: now } })
          .run();
        return { kind: "reserved" };
      },
      { behavior: "immediate" },
    );
  }

  /** Stores the result of a reserved key's request (replayed from now on). */
  async complete(netid: string, key: string, result: StoredResult, now: number): Promise<void> {
    this.db
      .update(idempotencyKeys)
      .set({ ...result, createdAt: now })
      .where(and(eq(idempotencyKeys.netid, netid), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, IN_PROGRESS)))
      .run();
  }

  /** Gives a reserved key up (its request failed unexpectedly): the next request with it runs. */
  async release(netid: string, key: string): Promise<void> {
    this.db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.netid, netid), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, IN_PROGRESS))).run();
  }
}
