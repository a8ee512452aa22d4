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

export interface PlatformTokenRepository {
  save(tokenHash: string, uid: string, createdAt: number): Promise<void>;
  /** The uid an active (unreleased) token belongs to. */
  findActiveUid(tokenHash: string): Promise<string | undefined>;
  release(tokenHash: string, at: number): Promise<boolean>;
}

/** Failed-login bookkeeping; keys are per uid and per client address. */
export interface LoginThrottle {
  /** Timestamps (seconds) of failures recorded for `key` after `since` (exclusive), oldest first. */
  failuresSince(key: string, since: number): Promise<number[]>;
  recordFailure(keys: string[], at: number): Promise<void>;
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
  | "access.denied";

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
