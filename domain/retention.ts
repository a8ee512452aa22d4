import { RECORD_WINDOW_SECONDS } from "./partners/provider-record";

/**
 * How long each store keeps a finished row, in seconds: a promise to the companies (a delivered message can be read
 * back for a week, security events for 90 days, an Idempotency-Key replays for a day). Both databases prune by it;
 * the periods a single SQLite process has no table for (streams, rate buckets, login leases) serve PostgreSQL only.
 */
export interface Retention {
  /** Delivered outbox messages (failed ones stay: they can be re-queued). */
  deliveredOutbox: number;
  /** Security events (the audit CLI reads them). */
  audit: number;
  /** Released platform tokens (401 either way; the row only says when). */
  releasedTokens: number;
  /** Signed-out core tokens, after they expired (they fail on their own then). */
  revokedTokens: number;
  /** Failed logins: only the last 15 minutes count for throttling. */
  loginFailures: number;
  /** Idempotency-Key results (replayed for 24 h). */
  idempotencyKeys: number;
  /** Live events (an event stream resumes within 24 h). */
  liveEvents: number;
  /** Network quotes past their validUntil (a booking of one answers 409 QUOTE_EXPIRED meanwhile, 404 after). */
  networkQuotes: number;
  /** Earlier offers of bookings sent before the provider record's window (docs/terms.md#provider-record): none read them then. */
  earlierOffers: number;
  /**
   * Statements' own records (docs/settlement.md#how-long-statements-keep-their-records): a give-back's cost recovery
   * past its pickup, a dispute past its answer. An open dispute stays while it is open.
   */
  settlementRecords: number;
  /** Event streams closed (or whose instance died) this long ago: no longer a reason to log positions. */
  deadStreams: number;
  /** Rate buckets not used for this long (a full hour's budget has refilled by then). */
  idleRateBuckets: number;
  /** Login attempts left in flight by an instance that died (the throttle ignores them past this lease). */
  loginAttempts: number;
}

const DAY = 86400;

/** Live events are pruned after this. */
export const LIVE_EVENT_RETENTION_SECONDS = 25 * 3600;

/** The periods both databases keep. */
export const RETENTION: Readonly<Retention> = Object.freeze({
  deliveredOutbox: 7 * DAY,
  audit: 90 * DAY,
  releasedTokens: DAY,
  revokedTokens: 60,
  loginFailures: 3600,
  idempotencyKeys: DAY,
  liveEvents: LIVE_EVENT_RETENTION_SECONDS,
  networkQuotes: DAY,
  earlierOffers: RECORD_WINDOW_SECONDS,
  settlementRecords: 400 * DAY,
  deadStreams: LIVE_EVENT_RETENTION_SECONDS,
  idleRateBuckets: 3600,
  loginAttempts: 60,
});
