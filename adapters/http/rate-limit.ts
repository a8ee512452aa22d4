import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { takeToken, type Bucket, type RateDecision } from "../../domain/rate-limit";
import { TooManyRequestsError } from "../../domain/errors";
import { pathOf } from "./errors";

/** Request budgets; 0 (or absent) disables one. */
export interface RateLimits {
  /** Fleet searches per minute per company. */
  searchPerMinute: number;
  /** sendTrip calls per minute per company. */
  sendTripPerMinute: number;
  /** Company registrations (dry runs included) per hour per client address. */
  registrationsPerHour?: number;
  /** Every other write (POST, PUT, PATCH, DELETE) per minute per credential, or per client address without one. */
  writesPerMinute?: number;
  /** Unauthenticated account checks per minute per client address (absent: unlimited). */
  accountCheckPerMinute?: number;
}

type Kind = keyof RateLimits;
const PERIOD_SECONDS: Record<Kind, number> = { searchPerMinute: 60, sendTripPerMinute: 60, registrationsPerHour: 3600, writesPerMinute: 60, accountCheckPerMinute: 60 };
const MAX_BUCKETS = 100_000;

/**
 * In-process per-company rate limiting. Answers 429 TooManyRequestsError with Retry-After when the budget is
 * spent, and sets the RateLimit-* headers (IETF draft) on every limited response.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limits: RateLimits, private readonly now: () => number = () => Date.now() / 1000) {}

  /** Spends one request of `who`'s budget for `kind` (a netid, an address); throws 429 when none is left. */
  check(kind: Kind, who: string, headers: Record<string, string | number>): void {
    const capacity = this.limits[kind];
    if (!capacity) return;
    const key = `${kind}:${who}`;
    const period = PERIOD_SECONDS[kind];
    const previous = this.buckets.get(key);
    const { decision, bucket } = takeToken(previous, capacity, period, this.now());
    if (!previous && this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
    this.buckets.set(key, bucket);
    setHeaders(headers, decision);
    if (!decision.allowed)
      throw new TooManyRequestsError(decision.retryAfter, `Rate limit of ${capacity} requests per ${period === 60 ? "minute" : "hour"} reached; retry in ${decision.retryAfter} s`, "RATE_LIMITED");
  }
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Platform operations that change state although the reference system has them as GET. */
const GET_WRITES = /^\/Platform\.svc\/(retryTransaction\/[^/]+|releaseToken)(\/V1)?\/?$/i;
/**
 * Writes with a budget or throttle of their own: sendTrip, registration, the logins' failure throttle, and the
 * chauffeur position pushes (one a second per booking: a provider tracking 10,000 cars pushes 10,000 a second).
 */
const OWN_BUDGET = /^\/(api\/(company\/register|token|GGPS\.svc\/(saveGPScache|GPSgrab))|Platform\.svc\/(sendTrip|getToken2?)(\/V1)?)\/?$/i;

/**
 * The write budget of every other write route (retryTransaction and releaseToken included, GETs that change
 * state), spent before the route runs (so a refused request does no work):
 * per credential (a hash of the bearer or platform token, so one company's clients share it) or, without one,
 * per client address.
 */
export function writeRateLimit(limiter: RateLimiter, addressOf: (request: Request) => string) {
  return new Elysia({ name: "write-rate-limit" }).onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    if (WRITES.has(request.method) ? OWN_BUDGET.test(path) : !GET_WRITES.test(path)) return;
    const credential = request.headers.get("authorization") ?? request.headers.get("token");
    const who = credential ? `c:${createHash("sha256").update(credential).digest("base64url").slice(0, 22)}` : `a:${addressOf(request)}`;
    limiter.check("writesPerMinute", who, set.headers as Record<string, string | number>);
  });
}

function setHeaders(headers: Record<string, string | number>, d: RateDecision): void {
  headers["ratelimit-limit"] = String(d.limit);
  headers["ratelimit-remaining"] = String(d.remaining);
  headers["ratelimit-reset"] = String(d.reset);
}
