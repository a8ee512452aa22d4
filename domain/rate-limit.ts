/** A token bucket: `capacity` requests at once, refilled at `capacity` per `periodSeconds`. */
export interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a request would be allowed (0 when allowed now). */
  retryAfter: number;
  /** Seconds until the bucket is full again. */
  reset: number;
}

/**
 * Takes one token from `bucket` at time `now` (seconds), refilling it first. Pure: returns the decision and
 * the new bucket state.
 */
export function takeToken(bucket: Bucket | undefined, capacity: number, periodSeconds: number, now: number): { decision: RateDecision; bucket: Bucket } {
  const rate = capacity / periodSeconds;
  const previous = bucket ?? { tokens: capacity, updatedAt: now };
  const tokens = Math.min(capacity, previous.tokens + Math.max(0, now - previous.updatedAt) * rate);
  const allowed = tokens >= 1;
  const left = allowed ? tokens - 1 : tokens;
  return { bucket: { tokens: left, updatedAt: now }, decision: rateDecision(allowed, left, capacity, periodSeconds) };
}

/** The decision for a request `allowed` (or not) that left `left` tokens in a bucket of `capacity` per `periodSeconds`. */
export function rateDecision(allowed: boolean, left: number, capacity: number, periodSeconds: number): RateDecision {
  const rate = capacity / periodSeconds;
  return {
    allowed,
    limit: capacity,
    remaining: Math.floor(left),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / rate)),
    reset: Math.ceil((capacity - left) / rate),
  };
}

/**
 * Where token buckets live: in the process (one instance) or in a store several instances share. `take` spends one
 * token of `key`'s bucket at `now` exactly like `takeToken` (a refused request takes none) and answers the
 * decision; a local store answers synchronously, a shared one with a Promise.
 */
export interface RateBudgets {
  take(key: string, capacity: number, periodSeconds: number, now: number): RateDecision | Promise<RateDecision>;
}
