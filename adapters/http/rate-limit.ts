import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { takeToken, type Bucket, type RateBudgets, type RateDecision } from "../../domain/rate-limit";
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

/** Token buckets in this process's memory: the budgets of a single instance. */
export class LocalRateBudgets implements RateBudgets {
  private readonly buckets = new Map<string, Bucket>();

  take(key: string, capacity: number, periodSeconds: number, now: number): RateDecision {
    const previous = this.buckets.get(key);
    const { decision, bucket } = takeToken(previous, capacity, periodSeconds, now);
    if (!previous && this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
    this.buckets.set(key, bucket);
    return decision;
  }
}

/**
 * Per-company rate limiting over a store of budgets (this process's memory unless given a shared one). Answers
 * 429 TooManyRequestsError with Retry-After when the budget is spent, and sets the RateLimit-* headers (IETF
 * draft) on every limited response.
 */
export class RateLimiter {
  constructor(
    private readonly limits: RateLimits,
    private readonly now: () => number = () => Date.now() / 1000,
    private readonly budgets: RateBudgets = new LocalRateBudgets(),
  ) {}

  /** Whether `check` always answers synchronously (budgets in this process), so callers need no await. */
  get synchronous(): boolean {
    return this.budgets instanceof LocalRateBudgets;
  }

  /**
   * Spends one request of `who`'s budget for `kind` (a netid, an address); throws (or rejects with) 429 when none
   * is left. Synchronous with budgets in this process; a Promise with shared ones.
   */
  check(kind: Kind, who: string, headers: Record<string, string | number>): void | Promise<void> {
    const capacity = this.limits[kind];
    if (!capacity) return;
    const period = PERIOD_SECONDS[kind];
    const decision = this.budgets.take(`${kind}:${who}`, capacity, period, this.now());
    if (decision instanceof Promise) return decision.then((d) => settle(d, capacity, period, headers));
    settle(decision, capacity, period, headers);
  }
}

function settle(decision: RateDecision, capacity: number, period: number, headers: Record<string, string | number>): void {
  setHeaders(headers, decision);
  if (!decision.allowed)
    throw new TooManyRequestsError(decision.retryAfter, `Rate limit of ${capacity} requests per ${period === 60 ? "minute" : "hour"} reached; retry in ${decision.retryAfter} s`, "RATE_LIMITED");
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
  const plugin = new Elysia({ name: "write-rate-limit" });
  // Elysia decides from the hook itself whether to await it: the local budgets keep a synchronous hook, so
  // requests that spend nothing (every GET search) gain no await.
  if (limiter.synchronous)
    return plugin.onRequest(({ request, set }) => {
      const who = writer(request, addressOf);
      if (who !== undefined) limiter.check("writesPerMinute", who, set.headers as Record<string, string | number>);
    });
  return plugin.onRequest(async ({ request, set }) => {
    const who = writer(request, addressOf);
    if (who !== undefined) await limiter.check("writesPerMinute", who, set.headers as Record<string, string | number>);
  });
}

/** Whose write budget `request` spends, or undefined when it spends none. */
function writer(request: Request, addressOf: (request: Request) => string): string | undefined {
  const path = pathOf(request.url);
  if (WRITES.has(request.method) ? OWN_BUDGET.test(path) : !GET_WRITES.test(path)) return undefined;
  const credential = request.headers.get("authorization") ?? request.headers.get("token");
  return credential ? `c:${createHash("sha256").update(credential).digest("base64url").slice(0, 22)}` : `a:${addressOf(request)}`;
}

function setHeaders(headers: Record<string, string | number>, d: RateDecision): void {
  headers["ratelimit-limit"] = String(d.limit);
  headers["ratelimit-remaining"] = String(d.remaining);
  headers["ratelimit-reset"] = String(d.reset);
}
