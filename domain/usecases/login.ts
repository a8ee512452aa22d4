import { TooManyRequestsError, UnauthorizedError } from "../errors";
import type { AuditLog, Clock, LoginThrottle, PasswordHasher, User, UserRepository } from "../ports";

/** Failed-login limits: per uid and per client address, within one sliding window. */
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
 * Log in: refuse throttled uids and addresses before any hashing, then check the password.
 * Unknown user and wrong password fail alike.
 */
export async function login(deps: LoginDeps, credentials: { login: string; password: string; clientAddress: string }): Promise<User> {
  const now = deps.clock.now();
  const since = now - LOGIN_LIMITS.windowSeconds;
  const uidKey = `uid:${credentials.login.trim().toLowerCase()}`;
  const addressKey = `ip:${credentials.clientAddress}`;
  const wait = Math.max(
    retryAfterSeconds(await deps.throttle.failuresSince(uidKey, since), LOGIN_LIMITS.perUid, now, LOGIN_LIMITS.windowSeconds),
    retryAfterSeconds(await deps.throttle.failuresSince(addressKey, since), LOGIN_LIMITS.perAddress, now, LOGIN_LIMITS.windowSeconds),
  );
  if (wait > 0) {
    deps.audit.record({ type: "login.throttled", uid: credentials.login.trim().slice(0, 254), address: credentials.clientAddress }, now);
    throw new TooManyRequestsError(wait, "Too many failed logins; try again later", "LOGIN_THROTTLED");
  }

  const user = await deps.users.findByLogin(credentials.login.trim());
  const valid = await deps.hasher.verify(credentials.password, user?.passwordHash ?? deps.decoyHash);
  if (!user || !valid) {
    await deps.throttle.recordFailure([uidKey, addressKey], now);
    deps.audit.record({ type: "login.failed", uid: credentials.login.trim().slice(0, 254), netid: user?.netid, address: credentials.clientAddress }, now);
    throw new UnauthorizedError("Invalid user id or password", "INVALID_CREDENTIALS");
  }
  deps.audit.record({ type: "login.succeeded", uid: user.uid, netid: user.netid, address: credentials.clientAddress }, now);
  return user;
}
