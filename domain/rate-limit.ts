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
  return {
    bucket: { tokens: left, updatedAt: now },
    decision: {
      allowed,
      limit: capacity,
      remaining: Math.floor(left),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - left) / rate)),
      reset: Math.ceil((capacity - left) / rate),
    },
  };
}
