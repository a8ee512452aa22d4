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
