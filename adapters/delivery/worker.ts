import type { AttemptExchange, AttemptOutcome, DeliveryHooks, DeliveryRunner, IntegrationRepository, Outbox, OutboxMessage } from "../../domain/delivery/ports";
import type { Logger } from "../logging";
import type { Integration } from "../../domain/delivery/integration";
import { postJson, type SendResult } from "./http-sender";
import type { OutboundGuard } from "./outbound-guard";
import { TargetGate, targetKey, type GateOptions } from "./target-gate";
import { partnerRefusal } from "../../domain/delivery/partner-message";
import { storableText } from "./storable-text";
import { WorkerShare } from "./worker-share";
import { hostOf, recordedHeaders, safeError } from "./attempt-text";
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signing";

export interface WorkerOptions {
  /** Seconds before the next attempt after failed attempt `n`, or undefined to give up. */
  retryDelay: (attempt: number) => number | undefined;
  timeoutMs: number;
  concurrency: number;
  /** Longest sleep between polls (new messages also wake the worker). */
  idleMs: number;
  /** Decides, at each send, whether a URL may be reached and at which address. */
  guard: OutboundGuard;
  /**
   * One partner's and one company's share of the workers and the circuit breaker (defaults: a quarter of them
   * each, 5 failures or answers slower than half the timeout, 30 s).
   */
  gate?: Partial<GateOptions>;
  /** Seconds before a message whose outcome could not be recorded (disk full, database busy) is tried again. */
  recordRetrySeconds?: number;
  /** Other instances deliver from the same outbox: a waiter also reads the outbox, as the attempt may be theirs. */
  sharedOutbox?: boolean;
  /**
   * Milliseconds after which an attempt makes its company a slow one (default the lesser of 1 s and a quarter of
   * the timeout): slow companies together hold at most half the workers.
   */
  slowOwnerMs?: number;
}

/** Due messages read per page while looking for ones whose target has room; pages per tick. */
const PAGE = 64;
const MAX_PAGES = 8;

const now = () => Date.now() / 1000;
/** Seconds a message rests once its attempts are used up but the give-up could not be written yet. */
const UNRECORDABLE_REST_SECONDS = 600;
/** How often a waiter also reads the outbox (another instance may make the attempt). */
const WAIT_POLL_MS = 200;

/**
 * Delivers outbox messages in the background: in order per booking and channel, several bookings at once,
 * retrying with backoff. Survives restarts because all state is in the outbox. Each outcome is recorded with
 * what `hooks` do to the booking, in one transaction. One poll runs at a time.
 */
export class DeliveryWorker implements DeliveryRunner {
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Map<number, Promise<void>>();
  /** The due time each attempt under way was claimed at: a replay moves it, so the replay is told from the attempt. */
  private readonly inFlightDue = new Map<number, number>();
  /** Which attempts hold a worker, and the slow companies' share of them. */
  private readonly share: WorkerShare;
  /** Workers kept for companies with nothing in flight: a company's further attempts leave them free. */
  private readonly reserve: number;
  private readonly attemptWaiters = new Map<string, Array<(m: OutboxMessage | undefined) => void>>();
  private loop: Promise<void> | undefined;
  private polling = false;
  private pollAgain = false;
  /** Attempts finished while a poll was reading the outbox: what it read of them is already out of date. */
  private readonly finishedDuringPoll = new Set<number>();
  private readonly gate: TargetGate;
  /** Messages whose last outcome could not be recorded, and when they may be tried again. */
  private readonly cooldown = new Map<number, number>();
  /** Attempts of a message that could not be written at all (the database refused every write): they count all the same. */
  private readonly unrecorded = new Map<number, number>();

  constructor(
    private readonly outbox: Outbox,
    private readonly integrations: Pick<IntegrationRepository, "get">,
    private readonly hooks: DeliveryHooks,
    private readonly options: WorkerOptions,
    private readonly logger: Logger,
  ) {
    const share = Math.max(1, Math.ceil(options.concurrency / 4));
    this.gate = new TargetGate({
      perTarget: share,
      perOwner: share,
      failureThreshold: 5,
      openSeconds: 30,
      slowSeconds: options.timeoutMs / 2000,
      ...options.gate,
    });
    this.share = new WorkerShare(this.gate.slowSeconds * 1000, options.slowOwnerMs ?? Math.min(1000, options.timeoutMs / 4), options.concurrency);
    this.reserve = options.concurrency > 1 ? Math.max(1, Math.floor(options.concurrency / 4)) : 0;
  }

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
  waitForAttempt(eventId: string, timeoutMs: number, settled?: () => Promise<OutboxMessage | undefined>): Promise<OutboxMessage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), timeoutMs);
      let finished = false;
      // Where several instances share the outbox another one may make the attempt: its record is read too.
      const poll =
        settled && this.options.sharedOutbox
          ? setInterval(() => {
              settled()
                .then((m) => m && done(m))
                .catch(() => {});
            }, WAIT_POLL_MS)
          : undefined;
      const done = (m: OutboxMessage | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        if (poll) clearInterval(poll);
        const rest = (this.attemptWaiters.get(eventId) ?? []).filter((f) => f !== done);
        // An event nobody waits for any more leaves no entry behind.
        if (rest.length) this.attemptWaiters.set(eventId, rest);
        else this.attemptWaiters.delete(eventId);
        resolve(m);
      };
      this.attemptWaiters.set(eventId, [...(this.attemptWaiters.get(eventId) ?? []), done]);
      settled?.()
        .then((already) => already && done(already))
        .catch(() => {});
    });
  }

  /** Events with someone waiting for their next attempt (each waiter resolves or times out, and leaves no entry). */
  get waitingEvents(): number {
    return this.attemptWaiters.size;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), ms);
  }

  /** Runs one poll, or asks for another right after the one under way. */
  private poll(): void {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    this.loop = this.tick().finally(() => {
      this.polling = false;
      this.finishedDuringPoll.clear();
      if (this.pollAgain && this.running) {
        this.pollAgain = false;
        this.schedule(0);
      }
    });
  }

  /** One poll. Whatever fails in it (a busy or full database included) is logged and the next poll still comes. */
  private async tick(): Promise<void> {
    if (!this.running) return;
    let wait = this.options.idleMs;
    try {
      await this.startDue();
      const next = await this.outbox.nextDueAt();
      // A message due now that could not start (its target full, in flight) waits for a wake or the idle poll.
      if (next !== undefined && next > now()) wait = Math.min(this.options.idleMs, (next - now()) * 1000);
      // An attempt that turns slow gives its worker back: look again then.
      const turnsSlow = this.share.nextTurnMs();
      if (turnsSlow !== undefined) wait = Math.min(wait, Math.max(10, turnsSlow));
    } catch (error) {
      this.logger.error({ err: safeError(error) }, "delivery worker poll failed; polling again");
    }
    if (this.running) this.schedule(wait);
  }

  /**
   * Starts the due messages that have a free worker and whose target has room. Messages of a target whose
   * circuit is open are put off until it may be tried again, so they stop filling the head of the queue.
   */
  private async startDue(): Promise<void> {
    const at = now();
    for (const [id, until] of this.cooldown) if (until <= at) this.cooldown.delete(id);
    const putOff: Array<{ id: number; until: number }> = [];
    const notStarted: number[] = [];
    for (let page = 0; page < MAX_PAGES && this.hasRoom(); page++) {
      const rows = await this.outbox.due(at, PAGE, page * PAGE);
      for (const message of rows) {
        // The due query already holds back a message while an older one of its booking is pending (in flight included).
        if (this.inFlight.has(message.id)) {
          // Replayed while its attempt is under way: the claim goes back, the attempt's outcome is not recorded
          // for the replay, and the replay is sent once the attempt is over.
          if (this.inFlightDue.get(message.id) !== message.nextAttemptAt) notStarted.push(message.id);
          continue;
        }
        // Read again (claimed again where claims exist) after an attempt this poll saw finish: it waits for the next poll.
        if (!this.hasRoom() || this.cooldown.has(message.id) || this.finishedDuringPoll.has(message.id)) {
          notStarted.push(message.id);
          continue;
        }
        const owner = message.targetNetid;
        // Slow companies together hold at most half the workers, however many they are (docs/security.md#delivery-and-limits).
        if (this.share.slowFull(owner)) {
          notStarted.push(message.id);
          continue;
        }
        // A company already sending leaves the last workers to companies that are not (fair share).
        if (this.gate.inFlightOf(owner) > 0 && this.share.busy() >= this.options.concurrency - this.reserve) {
          notStarted.push(message.id);
          continue;
        }
        const key = targetKey(message.url);
        const admission = this.gate.admit(key, owner, at);
        if (!admission.go) {
          if (!admission.busy) putOff.push({ id: message.id, until: admission.until });
          else notStarted.push(message.id);
          continue;
        }
        this.gate.acquire(key, owner);
        this.share.started(message.id, owner);
        const attempt = this.attempt(message, key).finally(() => {
          this.inFlight.delete(message.id);
          this.inFlightDue.delete(message.id);
          this.share.ended(message.id);
          if (this.polling) this.finishedDuringPoll.add(message.id);
          this.wake();
        });
        this.inFlight.set(message.id, attempt);
        this.inFlightDue.set(message.id, message.nextAttemptAt);
      }
      if (rows.length < PAGE) break;
    }
    if (putOff.length) await this.outbox.putOff(putOff);
    if (notStarted.length) await this.outbox.release(notStarted);
  }

  /**
   * Whether another attempt may start: a worker is free, counting an attempt that has waited `slowMs` as having
   * given its worker back (slow endpoints cannot hold them all), within a bound on attempts open at once.
   */
  private hasRoom(): boolean {
    return this.share.busy() < this.options.concurrency && this.inFlight.size < this.options.concurrency * 4;
  }

  /** Sends one message and records the outcome; never rejects. */
  private async attempt(message: OutboxMessage, key: string): Promise<void> {
    const startedMs = performance.now();
    let result: SendResult;
    // A webhook held back for an unverified URL never reached the target: it says nothing about it.
    let contacted = true;
    let sentHeaders: Record<string, string> | null = null;
    try {
      const integration = await this.integrations.get(message.targetNetid);
      const checked = await this.options.guard.check(message.url);
      if (!checked.ok) result = { ok: false, status: null, error: `refused: the URL ${checked.reason}` };
      else if (message.channel === "webhook" && !(integration?.webhookUrl === message.url && integration.webhookVerifiedAt !== null)) {
        contacted = false;
        result = { ok: false, status: null, error: "refused: the URL is not the company's verified webhook URL" };
      } else {
        const headers = this.headersFor(message, integration);
        sentHeaders = message.channel === "webhook" ? recordedHeaders(message.body, headers) : null;
        result = await postJson(checked.target, message.body, headers, this.options.timeoutMs);
      }
    } catch {
      result = { ok: false, status: null, error: "delivery failed" };
    }
    // A GNet partner refuses a trip with a 2xx whose JSON says success: false.
    const refusal = result.ok && message.channel === "delivery" ? partnerRefusal(result.reply) : undefined;
    if (refusal !== undefined) result = { ok: false, status: result.status, error: `refused the trip: ${refusal}` };
    const at = now();
    const durationMs = Math.round(performance.now() - startedMs);
    // Webhook attempts are kept for the owner's delivery log: what was sent, what came back.
    const exchange: AttemptExchange | undefined =
      message.channel === "webhook"
        ? {
            durationMs,
            requestHeaders: sentHeaders,
            responseStatus: result.status,
            responseBody: result.answer?.text ?? null,
            responseTruncated: result.answer?.truncated ?? false,
            error: result.ok ? null : (result.error ?? "failed"),
          }
        : undefined;
    this.share.answered(message.targetNetid, performance.now() - startedMs);
    // Silence and slow answers trip the breaker: an error answer comes back at once and holds no worker for long.
    this.gate.release(key, message.targetNetid, contacted ? result.status !== null : undefined, (performance.now() - startedMs) / 1000, at);
    const attempts = message.attempts + (this.unrecorded.get(message.id) ?? 0);
    let recorded: boolean;
    try {
      let outcome: AttemptOutcome;
      let change;
      if (result.ok) {
        outcome = { ok: true, status: result.status ?? 200, at: Math.floor(at), exchange };
        change = this.hooks.delivered?.(message, result.reply, Math.floor(at));
      } else {
        const delay = this.options.retryDelay(attempts + 1);
        const error = storableText(`${message.channel === "delivery" ? "Delivery" : "Webhook"} to ${hostOf(message.url)} failed: ${result.error}`);
        outcome = { ok: false, error, status: result.status, retryAt: delay === undefined ? undefined : at + delay, at: Math.floor(at), exchange };
        change = this.hooks.attemptFailed?.(message, error, Math.floor(at), delay === undefined);
      }
      recorded = await this.outbox.recordAttempt(message, outcome, change || undefined);
    } catch (error) {
      // What came back could not be stored with its outcome: the attempt still counts, recorded as a failure.
      this.logger.error({ err: safeError(error), eventId: message.eventId }, "delivery outcome could not be recorded; recording a failed attempt");
      const fallback = await this.recordUnstorable(message, result.status, attempts, at);
      if (fallback === undefined) return;
      recorded = fallback;
    }
    this.unrecorded.delete(message.id);
    if (!recorded) {
      // Its claim ran out while it was sent and another instance took it over (that one records the outcome), or it was
      // replayed meanwhile (the replay is sent again).
      this.logger.warn({ eventId: message.eventId }, "delivery outcome not recorded: another instance took the message over, or it was replayed");
      return;
    }
    if (!result.ok) this.logger.warn({ eventId: message.eventId, channel: message.channel, status: result.status }, "delivery attempt failed");
    try {
      const record = await this.outbox.get(message.id);
      for (const resolve of this.attemptWaiters.get(message.eventId) ?? []) resolve(record);
    } catch (error) {
      this.logger.error({ err: safeError(error), eventId: message.eventId }, "delivery waiters could not be told");
    }
  }

  /**
   * Records an attempt whose outcome could not be stored as a plain failure (no answer kept), so it counts towards
   * the retry limit and the booking fails after the last one. When even that cannot be written (disk full,
   * database down) the attempt is counted here and the message rests until its next retry; undefined then.
   */
  private async recordUnstorable(message: OutboxMessage, status: number | null, attempts: number, at: number): Promise<boolean | undefined> {
    const delay = this.options.retryDelay(attempts + 1);
    const error = `${message.channel === "delivery" ? "Delivery" : "Webhook"} to ${hostOf(message.url)} failed: its answer could not be stored`;
    try {
      const change = this.hooks.attemptFailed?.(message, error, Math.floor(at), delay === undefined);
      const outcome: AttemptOutcome = { ok: false, error, status, retryAt: delay === undefined ? undefined : at + delay, at: Math.floor(at) };
      return await this.outbox.recordAttempt(message, outcome, change || undefined);
    } catch (failure) {
      this.unrecorded.set(message.id, attempts + 1);
      // The message stays pending as it was; it is sent again (same event id) once the database takes writes.
      this.cooldown.set(message.id, at + Math.max(this.options.recordRetrySeconds ?? 5, delay ?? UNRECORDABLE_REST_SECONDS));
      this.outbox.release([message.id]).catch(() => {});
      this.logger.error({ err: safeError(failure), eventId: message.eventId, attempts: attempts + 1 }, "delivery attempt could not be recorded; will retry");
      return undefined;
    }
  }

  private headersFor(message: OutboxMessage, integration: Integration | undefined): Record<string, string> {
    const headers: Record<string, string> = { [EVENT_ID_HEADER]: message.eventId, [EVENT_TYPE_HEADER]: message.eventType };
    if (message.channel === "delivery" && integration?.deliveryAuth) {
      const { username, password } = integration.deliveryAuth;
      headers.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
    }
    if (message.channel === "webhook" && integration?.webhookSecret) {
      headers[SIGNATURE_HEADER] = signatureHeader(integration.webhookSecret, message.body, Math.floor(now()), message.eventId);
    }
    return headers;
  }
}
