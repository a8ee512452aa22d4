import type { Integration } from "./integration";

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
}

/** A company's integration read synchronously, inside the transaction of a booking change or an attempt. */
export interface IntegrationLookup {
  getSync(netid: string): Integration | undefined;
}

/** Runs synchronous reads and writes of the bookings and the outbox as one transaction; `fn` never awaits. */
export interface UnitOfWork {
  atomically<T>(fn: () => T): T;
}

/** A message to write in a change's transaction and the time it is first due. */
export interface AnnouncedMessage {
  message: NewOutboxMessage;
  at: number;
}

/**
 * The outbox: messages announcing booking changes, kept in the bookings' store so they commit with the change.
 * Every method is synchronous, to be called inside `atomically` (or alone, as its own transaction).
 */
export interface Outbox extends UnitOfWork {
  /** Adds a message; call inside the transaction of the change it announces. */
  enqueue(message: NewOutboxMessage, at: number): void;
  /** Pending messages due at `now`, earliest first, each only once no older message of its booking and channel is pending. */
  due(now: number, limit: number, offset?: number): OutboxMessage[];
  /** Holds a pending message back until `at` without counting an attempt. */
  putOff(id: number, at: number): void;
  /** When the earliest pending message is due, or undefined when none is pending. */
  nextDueAt(): number | undefined;
  markDelivered(id: number, status: number, at: number): void;
  /** Records a failed attempt: rescheduled at `retryAt`, or failed for good when undefined. */
  markAttemptFailed(id: number, error: string, status: number | null, retryAt: number | undefined): void;
  /** Puts a booking's failed messages on a channel back in the queue, attempts reset, aimed at `url` when given; how many. */
  requeueFailed(transactionId: string, channel: Channel, at: number, url?: string): number;
  /** Sends a message again with the same event id. */
  requeue(id: number, at: number): void;
  get(id: number): OutboxMessage | undefined;
  byEventId(eventId: string): OutboxMessage | undefined;
  /** A company's messages on a channel, newest first. */
  list(netid: string, channel: Channel, limit: number, offset: number): { items: OutboxMessage[]; total: number };
  /** The newest message of a booking on a channel. */
  latest(transactionId: string, channel: Channel): OutboxMessage | undefined;
  /** Every message of a booking, oldest first. */
  forBooking(transactionId: string): OutboxMessage[];
  /** Messages not delivered, per channel and status (pending: the backlog; failed: given up). */
  backlog(): Array<{ channel: string; status: string; count: number }>;
}

/** What the booking side does when an attempt is recorded; runs inside the transaction recording it. */
export interface DeliveryHooks {
  delivered?(message: OutboxMessage, reply: unknown, at: number): void;
  attemptFailed?(message: OutboxMessage, error: string, at: number, final: boolean): void;
}

/** The delivery worker as the use case drives it. */
export interface DeliveryRunner {
  /** New messages were written: look now rather than at the next poll. */
  wake(): void;
  /**
   * Resolves with the message once its next attempt is recorded (undefined after `timeoutMs`); `settled`,
   * checked after subscribing, answers at once for an attempt that finished just before.
   */
  waitForAttempt(eventId: string, timeoutMs: number, settled?: () => OutboxMessage | undefined): Promise<OutboxMessage | undefined>;
}

/** Decides whether the service may send to a URL (not into its own network); the reason when it may not. */
export interface OutboundTargets {
  problem(url: string): Promise<string | undefined>;
}

/** Encrypts a secret for storage and back; `context` names where it is kept (a sealed value opens only there). */
export interface SecretSealer {
  seal(plain: string, context: string): string;
  /** The plain value of a sealed one; a value stored before encryption is returned as it is. */
  open(stored: string, context: string): string;
}
