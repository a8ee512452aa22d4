import { takeToken, type Bucket, type RateDecision } from "../../domain/rate-limit";
import { TooManyRequestsError } from "../../domain/errors";

/** Per-company request budgets of the expensive operations; 0 disables a budget. */
export interface RateLimits {
  /** Fleet searches per minute per company. */
  searchPerMinute: number;
  /** sendTrip calls per minute per company. */
  sendTripPerMinute: number;
  /** Unauthenticated account checks per minute per client address (absent: unlimited). */
  accountCheckPerMinute?: number;
}

type Kind = keyof RateLimits;
const MAX_BUCKETS = 100_000;

/**
 * In-process per-company rate limiting. Answers 429 TooManyRequestsError with Retry-After when the budget is
 * spent, and sets the RateLimit-* headers (IETF draft) on every limited response.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limits: RateLimits, private readonly now: () => number = () => Date.now() / 1000) {}

  /** Spends one request of `netid`'s (or a client address's) budget for `kind`; throws 429 when none is left. */
  check(kind: Kind, netid: string, headers: Record<string, string | number>): void {
    const capacity = this.limits[kind];
    if (!capacity) return;
    const key = `${kind}:${netid}`;
    const { decision, bucket } = takeToken(this.buckets.get(key), capacity, 60, this.now());
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
    this.buckets.set(key, bucket);
    setHeaders(headers, decision);
    if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfter, `Rate limit of ${capacity} requests per minute reached; retry in ${decision.retryAfter} s`, "RATE_LIMITED");
  }
}

function setHeaders(headers: Record<string, string | number>, d: RateDecision): void {
  headers["ratelimit-limit"] = String(d.limit);
  headers["ratelimit-remaining"] = String(d.remaining);
  headers["ratelimit-reset"] = String(d.reset);
}
