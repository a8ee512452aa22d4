import type { Company } from "./company/registration";
import type { Plan } from "./company/plan";

/** A person who logs in on behalf of a company. The first user's uid is the company's netid. */
export interface User {
  uid: string;
  netid: string;
  email: string;
  passwordHash: string;
  createdAt: number;
}

/** Who is calling, once a credential has been checked. */
export interface Caller {
  uid: string;
  netid: string;
  plan: Plan;
}

export interface CompanyRepository {
  /** Case-insensitive lookup. */
  findByNetid(netid: string): Promise<Company | undefined>;
  /** The names of the companies `netids` name (any case), in one read: keyed by the netid as asked (unknown ones left out). */
  namesOf(netids: readonly string[]): Promise<Map<string, string>>;
  /** Which of the unique fields are taken already (e-mail and phone compared normalised). */
  findTaken(candidate: { netid?: string; mainEmail: string; mainPhone: string }): Promise<Array<"netid" | "mainEmail" | "mainPhone">>;
  /** Creates the company and its first user in one transaction; ConflictError when a unique field is taken. */
  createWithFirstUser(company: Company, user: User): Promise<void>;
  setPlan(netid: string, plan: Plan): Promise<boolean>;
}

export interface UserRepository {
  /** Finds a user by uid or e-mail, case-insensitively. */
  findByLogin(login: string): Promise<User | undefined>;
  /** The caller behind a uid, with its company's plan; undefined once the user is removed. */
  findCaller(uid: string): Promise<Caller | undefined>;
  /** Deletes the user's profile and its platform tokens. */
  remove(uid: string): Promise<boolean>;
}

/** What a verified core bearer token says: the user, the company and when it expires (Unix seconds). */
export interface TokenClaims {
  sub: string;
  netid: string;
  exp: number;
  /** Names this token for revocation: its `jti` (a token without one: its subject and signed times). */
  tokenId: string;
}

/** Issues core bearer tokens (signed, expiring). */
export interface TokenIssuer {
  issue(uid: string, netid: string, now: number): Promise<{ token: string; exp: number }>;
}

/**
 * Verifies core bearer tokens: the claims of a valid token (signature, algorithm, issuer, audience and expiry
 * checked), undefined for anything else. Whether its user still exists is the caller's question.
 */
export interface TokenVerifier {
  verify(token: string): Promise<TokenClaims | undefined>;
}

export interface PlatformTokenRepository {
  save(tokenHash: string, uid: string, createdAt: number): Promise<void>;
  /** The uid an active (unreleased) token belongs to. */
  findActiveUid(tokenHash: string): Promise<string | undefined>;
  release(tokenHash: string, at: number): Promise<boolean>;
}

/** Core tokens ended before their expiry (sign-out), shared by every instance of the database. */
export interface RevokedTokens {
  /** Ends the token; kept until `expiresAt` (Unix seconds), after which the token fails on its own. */
  revoke(tokenId: string, expiresAt: number): Promise<void>;
  isRevoked(tokenId: string): Promise<boolean>;
}

/** Failed-login bookkeeping; keys are per uid and per client address. */
export interface LoginThrottle {
  /**
   * In one atomic step: reads, for each key, the failure timestamps after `since` (seconds, oldest first) and how
   * many admitted attempts are still being checked; asks `admit` whether this attempt may go ahead and, if so,
   * counts it as being checked — so that concurrent attempts see each other. `admitted` tells which.
   */
  begin(keys: string[], since: number, admit: (seen: LoginAttemptsSeen[]) => boolean): Promise<{ seen: LoginAttemptsSeen[]; admitted: boolean }>;
  /** An admitted attempt is over: it stops being "checked" and, when it failed, is recorded as a failure of every key. */
  end(keys: string[], failed: boolean, at: number): Promise<void>;
}

/** What the throttle knows about one key. */
export interface LoginAttemptsSeen {
  failures: number[];
  /** Admitted attempts whose password is still being checked. */
  pending: number;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

export interface Clock {
  /** Unix time in seconds. */
  now(): number;
}

/** Kinds of security event kept in the audit trail. */
export type AuditEventType =
  | "login.succeeded"
  | "login.failed"
  | "login.throttled"
  | "token.released"
  | "company.registered"
  | "plan.changed"
  | "integration.changed"
  | "partnership.changed"
  | "sandbox.changed"
  | "access.denied"
  | "audit.dropped";

export interface AuditEvent {
  type: AuditEventType;
  netid?: string;
  uid?: string;
  /** Client address, where known. */
  address?: string;
  detail?: string;
}

/** The audit trail: append-only, queried by operators. Never given a password, token or secret. */
export interface AuditLog {
  record(event: AuditEvent, at: number): void;
}
