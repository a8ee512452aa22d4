import { TooManyRequestsError, UnauthorizedError } from "../errors";
import { normalizeEmail } from "../company/registration";
import type { AuditLog, Clock, LoginAttemptsSeen, LoginThrottle, PasswordHasher, User, UserRepository } from "../ports";

/** Failed-login limits: per account (its uid and e-mail alike) and per client address, within one sliding window. */
export const LOGIN_LIMITS = { windowSeconds: 15 * 60, perUid: 10, perAddress: 50 } as const;

export interface LoginDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  throttle: LoginThrottle;
  clock: Clock;
  /** A hash verified when the user is unknown, so both failures take similar time. */
  decoyHash: string;
  audit: AuditLog;
}

/**
 * Seconds until `failures` (timestamps, oldest first) drop below `limit` within the window;
 * 0 when the caller may try now.
 */
export function retryAfterSeconds(failures: number[], limit: number, now: number, windowSeconds: number): number {
  if (failures.length < limit) return 0;
  const decisive = failures[failures.length - limit];
  return Math.max(1, Math.ceil(decisive + windowSeconds - now));
}

/**
 * Seconds to wait before one more attempt for a key: until enough failures leave the window, or 1 s when only
 * attempts still being checked fill the budget (they may yet succeed). 0 when the attempt may go ahead.
 */
export function throttleWait(seen: LoginAttemptsSeen, limit: number, now: number, windowSeconds: number): number {
  const wait = retryAfterSeconds(seen.failures, limit, now, windowSeconds);
  if (wait > 0) return wait;
  return seen.failures.length + seen.pending >= limit ? 1 : 0;
}

/**
 * Log in: refuse throttled uids and addresses before any hashing, then check the password.
 * Unknown user and wrong password fail alike.
 */
export async function login(deps: LoginDeps, credentials: { login: string; password: string; clientAddress: string }): Promise<User> {
  const now = deps.clock.now();
  const since = now - LOGIN_LIMITS.windowSeconds;
  // The account is looked up first (no hashing yet) so that its uid and its e-mail share one budget.
  // An e-mail is looked up in the form registration stored it (composed, domain spelled one way).
  const loginName = credentials.login.includes("@") ? normalizeEmail(credentials.login) : credentials.login.trim();
  const user = await deps.users.findByLogin(loginName);
  const account = user ? user.uid.toLowerCase() : loginName.toLowerCase();
  const keys = [`uid:${account}`, `ip:${credentials.clientAddress}`];
  const waitFor = ([uid, address]: LoginAttemptsSeen[]) =>
    Math.max(
      throttleWait(uid, LOGIN_LIMITS.perUid, now, LOGIN_LIMITS.windowSeconds),
      throttleWait(address, LOGIN_LIMITS.perAddress, now, LOGIN_LIMITS.windowSeconds),
    );
  // Attempts still being hashed count against the budget: a burst of concurrent guesses cannot all slip in
  // before the first failures are recorded.
  const { seen, admitted } = await deps.throttle.begin(keys, since, (s) => waitFor(s) === 0);
  if (!admitted) {
    deps.audit.record({ type: "login.throttled", uid: credentials.login.trim().slice(0, 254), address: credentials.clientAddress }, now);
    throw new TooManyRequestsError(waitFor(seen), "Too many failed logins; try again later", "LOGIN_THROTTLED");
  }

  let valid = false;
  try {
    valid = await deps.hasher.verify(credentials.password, user?.passwordHash ?? deps.decoyHash);
  } finally {
    await deps.throttle.end(keys, !user || !valid, now);
  }
  if (!user || !valid) {
    deps.audit.record({ type: "login.failed", uid: credentials.login.trim().slice(0, 254), netid: user?.netid, address: credentials.clientAddress }, now);
    throw new UnauthorizedError("Invalid user id or password", "INVALID_CREDENTIALS");
  }
  deps.audit.record({ type: "login.succeeded", uid: user.uid, netid: user.netid, address: credentials.clientAddress }, now);
  return user;
}
