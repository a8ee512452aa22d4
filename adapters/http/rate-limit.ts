import { Elysia } from "elysia";
import { takeToken, type Bucket, type RateBudgets, type RateDecision } from "../../domain/rate-limit";
import { TooManyRequestsError } from "../../domain/errors";
import { pathOf } from "./request-context";

/** Request budgets; 0 (or absent) disables one. */
export interface RateLimits {
  /** Fleet searches per minute per company. */
  searchPerMinute: number;
  /** sendTrip calls per minute per company. */
  sendTripPerMinute: number;
  /** Company registrations (dry runs included) per hour per client address. */
  registrationsPerHour?: number;
  /** Every other write (POST, PUT, PATCH, DELETE) per minute per authenticated company, else per client address. */
  writesPerMinute?: number;
  /** Unauthenticated account checks per minute per client address (absent: unlimited). */
  accountCheckPerMinute?: number;
  /** Provider record reads per minute per calling company (absent: unlimited). */
  recordReadsPerMinute?: number;
}

type Kind = keyof RateLimits;
const PERIOD_SECONDS: Record<Kind, number> = {
  searchPerMinute: 60,
  sendTripPerMinute: 60,
  registrationsPerHour: 3600,
  writesPerMinute: 60,
  accountCheckPerMinute: 60,
  recordReadsPerMinute: 60,
};
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
    throw new TooManyRequestsError(
      decision.retryAfter,
      `Rate limit of ${capacity} requests per ${period === 60 ? "minute" : "hour"} reached; retry in ${decision.retryAfter} s`,
      "RATE_LIMITED",
    );
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Platform operations that change state although the reference system has them as GET. */
const GET_WRITES = /^\/Platform\.svc\/(retryTransaction\/[^/]+|cancelTripByResNo\/[^/]+\/[^/]+|releaseToken)(\/V1)?\/?$/i;
/**
 * Writes with a budget or throttle of their own: sendTrip, registration, the logins' failure throttle, and the
 * chauffeur position pushes (one a second per booking: a provider tracking 10,000 cars pushes 10,000 a second).
 */
const OWN_BUDGET = /^\/(api\/(company\/register|token|GGPS\.svc\/(saveGPScache|GPSgrab))|Platform\.svc\/(sendTrip|getToken2?)(\/V1)?)\/?$/i;

/** The company a request's credential belongs to, or undefined when it carries none that authenticates. */
export type CompanyOfRequest = (request: Request) => Promise<string | undefined>;

/** What `callerCompany` needs of the authenticator. */
interface Identifies {
  any(authorization: string | null, platformHeader: string | null, request?: Request): Promise<{ netid: string }>;
  platform(token: string | null, authorization?: string | null, request?: Request): Promise<{ netid: string }>;
}

/**
 * The company behind a request's bearer credential or, failing that, its `token` header; undefined when neither
 * authenticates (the route answers 401 itself).
 */
export function callerCompany(auth: Identifies): CompanyOfRequest {
  return async (request) => {
    const authorization = request.headers.get("authorization");
    const token = request.headers.get("token");
    // With the request: the route's own authentication then reads these lookups instead of making them again.
    for (const attempt of [() => auth.any(authorization, token, request), () => auth.platform(token, null, request)]) {
      try {
        return (await attempt()).netid;
      } catch {
        // The next credential, if any; without one the address pays.
      }
    }
    return undefined;
  };
}

/**
 * The write budget of every other write route (retryTransaction, cancelTripByResNo and releaseToken included, GETs
 * that change state), spent before the route runs (so a refused request does no work): per authenticated company
 * (however the credential is spelled, and however many tokens the company holds) or, without a credential that
 * authenticates, per client address.
 */
export function writeRateLimit(limiter: RateLimiter, addressOf: (request: Request) => string, companyOf: CompanyOfRequest) {
  return new Elysia({ name: "write-rate-limit" }).onRequest(async ({ request, set }) => {
    if (!isBudgetedWrite(request)) return;
    const company = request.headers.has("authorization") || request.headers.has("token") ? await companyOf(request) : undefined;
    await limiter.check("writesPerMinute", company !== undefined ? `c:${company}` : `a:${addressOf(request)}`, set.headers as Record<string, string | number>);
  });
}

/** Whether `request` spends the write budget. */
function isBudgetedWrite(request: Request): boolean {
  const path = pathOf(request.url);
  return WRITES.has(request.method) ? !OWN_BUDGET.test(path) : GET_WRITES.test(path);
}

function setHeaders(headers: Record<string, string | number>, d: RateDecision): void {
  headers["ratelimit-limit"] = String(d.limit);
  headers["ratelimit-remaining"] = String(d.remaining);
  headers["ratelimit-reset"] = String(d.reset);
}
