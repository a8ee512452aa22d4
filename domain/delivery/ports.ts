import type { Integration } from "./integration";
import type { Booking } from "../trips/booking";
import type { Decision } from "../trips/decision";
import type { BookingRef } from "../trips/send-trip-request";

export type Channel = "delivery" | "webhook";
export type OutboxStatus = "pending" | "delivered" | "failed";

/** One message of the outbox: a delivery to a provider's endpoint or a webhook to a requester. */
export interface OutboxMessage extends NewOutboxMessage {
  id: number;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** A message to write in the same transaction as the booking change it announces. */
export interface NewOutboxMessage {
  eventId: string;
  channel: Channel;
  eventType: string;
  transactionId: string;
  targetNetid: string;
  url: string;
  body: string;
}

export interface IntegrationRepository {
  get(netid: string): Promise<Integration | undefined>;
  save(integration: Integration, at: number): Promise<void>;
  /** The integrations of `netids` (as `get` reads each), in one read: keyed by the netid asked (one without an integration left out). */
  getMany(netids: readonly string[]): Promise<Map<string, Integration>>;
  /** The largest serviceRadiusKm any company set (the default when none set a larger one): how far a network quote looks. */
  largestServiceRadiusKm(): Promise<number>;
}

/**
 * A company's integration read synchronously, while a booking change's messages are built; a store over the
 * network answers from what it read just before the change.
 */
export interface IntegrationLookup {
  getSync(netid: string): Integration | undefined;
}

/** A message to write in a change's transaction and the time it is first due. */
export interface AnnouncedMessage {
  message: NewOutboxMessage;
  at: number;
}

/** Outstanding deliveries of a booking: given up (failed), and still queued (pending: due, retrying or in flight). */
export interface OutstandingDeliveries {
  failed: boolean;
  pending: boolean;
}

/**
 * What one attempt sent and got back, kept for the delivery log: the headers sent (never a credential; null when
 * nothing was sent), the answer's status and first 4 KiB as text, how long it took, or why it failed.
 */
export interface AttemptExchange {
  durationMs: number;
  requestHeaders: Record<string, string> | null;
  responseStatus: number | null;
  responseBody: string | null;
  /** The answer was longer than what is kept. */
  responseTruncated: boolean;
  error: string | null;
}

/** A recorded attempt: its exchange and when it ended (Unix seconds). */
export interface AttemptRecord extends AttemptExchange {
  at: number;
}

/** The newest attempts kept per message (older ones are dropped as new ones are recorded). */
export const RECORDED_ATTEMPTS_PER_MESSAGE = 20;

/**
 * How an attempt ended; `at` is Unix seconds. `retryAt` undefined: failed for good. `exchange`, when given, is
 * recorded with it (webhooks).
 */
export type AttemptOutcome =
  | { ok: true; status: number; at: number; exchange?: AttemptExchange }
  | { ok: false; error: string; status: number | null; retryAt: number | undefined; at: number; exchange?: AttemptExchange };

/** A change an attempt's outcome makes to its booking, applied in the transaction that records the attempt. */
export interface BookingChange {
  ref: BookingRef;
  decide(current: Booking | undefined): Decision<unknown>;
  /**
   * Decides instead when the write `decide` made was refused because it gave the booking a provider's reservation
   * number another live booking holds (PROVIDER_RES_NO_IN_USE): the attempt is still recorded.
   */
  numberTaken?(current: Booking | undefined): Decision<unknown>;
}

/**
 * The outbox: messages announcing booking changes, kept in the bookings' store so they commit with the change
 * (the booking repository writes them). A store that several instances share claims what `due` returns for the
 * instance that asked (a lease that runs out should the instance die), so each message is sent by one instance.
 */
export interface Outbox {
  /**
   * Pending messages due at `now`, earliest first, each only once no older message of its booking and channel is
   * pending. A shared store claims them for this instance, never returns one another instance holds, and
   * ignores `offset` (what it claimed is not returned again).
   */
  due(now: number, limit: number, offset?: number): Promise<OutboxMessage[]>;
  /** Gives back claimed messages this instance did not start (nothing to do where nothing is claimed). */
  release(ids: readonly number[]): Promise<void>;
  /** Holds pending messages back until `until` without counting an attempt (and gives back their claim). */
  putOff(items: ReadonlyArray<{ id: number; until: number }>): Promise<void>;
  /** When the earliest pending message is due, or undefined when none is pending. */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Records an attempt and applies `change` to its booking (announcing it like any booking change), in one
   * transaction. A shared store records only while this instance still holds the claim: false, nothing
   * written, when another instance has taken the message over.
   */
  recordAttempt(message: OutboxMessage, outcome: AttemptOutcome, change?: BookingChange): Promise<boolean>;
  /**
   * In one transaction: whether the booking has failed and pending deliveries; `decide(booking, outstanding)`
   * applied to the booking (an error it throws changes nothing); then the booking's failed and pending deliveries
   * due at `at`, attempts reset, aimed at the provider's current delivery endpoint when it has one (failed ones
   * back to pending; a pending one another instance is attempting keeps its claim).
   */
  retryFailedDeliveries(
    transactionId: string,
    decide: (current: Booking | undefined, outstanding: OutstandingDeliveries) => Decision<unknown>,
    at: number,
  ): Promise<void>;
  /** Sends a message again with the same event id. */
  requeue(id: number, at: number): Promise<void>;
  /** Adds a message that announces no booking change (a test event), due at `at`; returns it as stored. */
  enqueue(message: NewOutboxMessage, at: number): Promise<OutboxMessage>;
  /** A message's recorded attempts, newest first (at most RECORDED_ATTEMPTS_PER_MESSAGE). */
  attemptsOf(id: number): Promise<AttemptRecord[]>;
  get(id: number): Promise<OutboxMessage | undefined>;
  byEventId(eventId: string): Promise<OutboxMessage | undefined>;
  /** A company's messages on a channel, newest first. */
  list(netid: string, channel: Channel, limit: number, offset: number): Promise<{ items: OutboxMessage[]; total: number }>;
  /** The newest message of a booking on a channel. */
  latest(transactionId: string, channel: Channel): Promise<OutboxMessage | undefined>;
  /** Every message of a booking, oldest first. */
  forBooking(transactionId: string): Promise<OutboxMessage[]>;
  /** Messages not delivered, per channel and status (pending: the backlog; failed: given up). */
  backlog(): Promise<Array<{ channel: string; status: string; count: number }>>;
}

/** The booking change each attempt's outcome makes (none for webhooks), recorded with the attempt. */
export interface DeliveryHooks {
  delivered?(message: OutboxMessage, reply: unknown, at: number): BookingChange | undefined | void;
  attemptFailed?(message: OutboxMessage, error: string, at: number, final: boolean): BookingChange | undefined | void;
}

/** The delivery worker as the use case drives it. */
export interface DeliveryRunner {
  /** New messages were written: look now rather than at the next poll. */
  wake(): void;
  /**
   * Resolves with the message once its next attempt is recorded (undefined after `timeoutMs`); `settled`,
   * checked after subscribing, answers at once for an attempt that finished just before.
   */
  waitForAttempt(eventId: string, timeoutMs: number, settled?: () => Promise<OutboxMessage | undefined>): Promise<OutboxMessage | undefined>;
}

/** Decides whether the service may send to a URL (not into its own network); the reason when it may not. */
export interface OutboundTargets {
  problem(url: string): Promise<string | undefined>;
}

/**
 * Proves that a webhook URL belongs to whoever set it: POSTs a `webhook.verify` event with a random challenge,
 * signed with the company's webhook secret, and wants the challenge echoed. Undefined when it was; else why not.
 */
export interface WebhookVerifier {
  /** False for a URL the service trusts without a challenge (the operator's own private receiver). */
  needsChallenge(url: string): Promise<boolean>;
  /** Sends the signed challenge: why the URL failed it, or undefined when it passed. */
  verify(url: string, secret: string): Promise<string | undefined>;
}

/** Encrypts a secret for storage and back; `context` names where it is kept (a sealed value opens only there). */
export interface SecretSealer {
  seal(plain: string, context: string): string;
  /** The plain value of a sealed one; a value stored before encryption is returned as it is. */
  open(stored: string, context: string): string;
}
