import type { Db } from "../sqlite/db";
import type { SqliteOutbox } from "../sqlite/delivery-repositories";
import type { SqliteIntegrationRepository } from "../sqlite/delivery-repositories";
import type { OutboxMessage } from "../../domain/delivery/ports";
import type { Logger } from "../logging";
import { postJson, type SendResult } from "./http-sender";
import { partnerRefusal } from "../../domain/delivery/partner-message";
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signing";

/** What the booking side does when a delivery succeeds or fails; runs inside the transaction recording it. */
export interface DeliveryHooks {
  delivered?(message: OutboxMessage, reply: unknown, at: number): void;
  attemptFailed?(message: OutboxMessage, error: string, at: number, final: boolean): void;
}

export interface WorkerOptions {
  /** Seconds before the next attempt after failed attempt `n`, or undefined to give up. */
  retryDelay: (attempt: number) => number | undefined;
  timeoutMs: number;
  concurrency: number;
  /** Longest sleep between polls (new messages also wake the worker). */
  idleMs: number;
}

const now = () => Date.now() / 1000;

/**
 * Delivers outbox messages in the background: in order per booking and channel, several bookings at once,
 * retrying with backoff. Survives restarts because all state is in the outbox table.
 */
export class DeliveryWorker {
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly attemptWaiters = new Map<string, Array<(m: OutboxMessage | undefined) => void>>();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly outbox: SqliteOutbox,
    private readonly integrations: SqliteIntegrationRepository,
    private readonly hooks: DeliveryHooks,
    private readonly options: WorkerOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops polling and waits for the attempts under way to finish and be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
    await Promise.all(this.inFlight.values());
  }

  /** New messages were written: look now rather than at the next poll. */
  wake(): void {
    if (this.running) this.schedule(0);
  }

  /**
   * Resolves with the message once its next attempt is recorded (or undefined after `timeoutMs`). `settled`
   * is checked after subscribing, so an attempt that finished just before the call is not waited for.
   */
  waitForAttempt(eventId: string, timeoutMs: number, settled?: () => OutboxMessage | undefined): Promise<OutboxMessage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const done = (m: OutboxMessage | undefined) => {
        clearTimeout(timer);
        const list = this.attemptWaiters.get(eventId) ?? [];
        this.attemptWaiters.set(eventId, list.filter((f) => f !== done));
        resolve(m);
      };
      this.attemptWaiters.set(eventId, [...(this.attemptWaiters.get(eventId) ?? []), done]);
      const already = settled?.();
      if (already) done(already);
    });
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.loop = this.tick().catch((error) => this.logger.error({ err: error }, "delivery worker tick failed"));
    }, ms);
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    const free = this.options.concurrency - this.inFlight.size;
    if (free > 0) {
      for (const message of this.outbox.due(now(), free + this.inFlight.size)) {
        if (this.inFlight.size >= this.options.concurrency) break;
        // The due query already holds back a message while an older one of its booking is pending (in flight included).
        if (this.inFlight.has(message.id)) continue;
        const attempt = this.attempt(message).finally(() => {
          this.inFlight.delete(message.id);
          this.wake();
        });
        this.inFlight.set(message.id, attempt);
      }
    }
    if (!this.running) return;
    const next = this.outbox.nextDueAt();
    const wait = next === undefined ? this.options.idleMs : Math.max(0, Math.min(this.options.idleMs, (next - now()) * 1000));
    this.schedule(wait);
  }

  private async attempt(message: OutboxMessage): Promise<void> {
    let result: SendResult;
    try {
      result = await postJson(message.url, message.body, this.headersFor(message), this.options.timeoutMs);
    } catch {
      result = { ok: false, status: null, error: "delivery failed" };
    }
    // A GNet partner refuses a trip with a 2xx whose JSON says success: false.
    const refusal = result.ok && message.channel === "delivery" ? partnerRefusal(result.reply) : undefined;
    if (refusal !== undefined) result = { ok: false, status: result.status, error: `refused the trip: ${refusal}` };
    const at = now();
    this.db.$client.transaction(() => {
      if (result.ok) {
        this.outbox.markDelivered(message.id, result.status ?? 200, Math.floor(at));
        this.hooks.delivered?.(message, result.reply, Math.floor(at));
      } else {
        const delay = this.options.retryDelay(message.attempts + 1);
        const error = `${message.channel === "delivery" ? "Delivery" : "Webhook"} to ${hostOf(message.url)} failed: ${result.error}`;
        this.outbox.markAttemptFailed(message.id, error, result.status, delay === undefined ? undefined : at + delay);
        this.hooks.attemptFailed?.(message, error, Math.floor(at), delay === undefined);
      }
    })();
    const recorded = this.outbox.get(message.id);
    for (const resolve of this.attemptWaiters.get(message.eventId) ?? []) resolve(recorded);
    if (!result.ok) this.logger.warn({ eventId: message.eventId, channel: message.channel, status: result.status }, "delivery attempt failed");
  }

  private headersFor(message: OutboxMessage): Record<string, string> {
    const headers: Record<string, string> = { [EVENT_ID_HEADER]: message.eventId, [EVENT_TYPE_HEADER]: message.eventType };
    const integration = this.integrations.getSync(message.targetNetid);
    if (message.channel === "delivery" && integration?.deliveryAuth) {
      const { username, password } = integration.deliveryAuth;
      headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
    }
    if (message.channel === "webhook" && integration?.webhookSecret) {
      headers[SIGNATURE_HEADER] = signatureHeader(integration.webhookSecret, message.body, Math.floor(now()));
    }
    return headers;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "partner";
  }
}
