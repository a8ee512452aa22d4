import { ConflictError, NotFoundError, TooManyRequestsError } from "../errors";
import type { AttemptRecord, IntegrationRepository, OutboxMessage } from "../delivery/ports";
import type { RateBudgets } from "../rate-limit";
import { WAIT_FOR_DELIVERY_MS, type DeliveryDeps } from "./deliver-booking";

/**
 * Trying a webhook: the owner has a signed `ping` sent to its webhook URL through the outbox like any booking event
 * (same signature, the same checks of the URL at the send, retries), and reads what each attempt of a delivery sent
 * and got back.
 */

/** The event type of a test event. */
export const PING_EVENT_TYPE = "ping";

/** Test events one company may send within an hour (each is a POST to a URL it chose). */
export const WEBHOOK_TESTS_PER_HOUR = 10;

export interface TryWebhookDeps extends Pick<DeliveryDeps, "outbox" | "runner" | "clock" | "dueNow"> {
  integrations: Pick<IntegrationRepository, "get">;
  /** Where each company's test events are counted (shared by the instances that share the outbox). */
  budgets: RateBudgets;
  newEventId: () => string;
}

/** A webhook delivery and its recorded attempts, newest first. */
export interface DeliveryDetail {
  message: OutboxMessage;
  attempts: AttemptRecord[];
}

const notFound = () => new NotFoundError("No such webhook delivery", "DELIVERY_NOT_FOUND");

/** One of the company's webhook deliveries; 404 DELIVERY_NOT_FOUND for any other id (another company's included). */
async function ownDelivery(deps: Pick<DeliveryDeps, "outbox">, netid: string, deliveryId: string): Promise<OutboxMessage> {
  const id = /^\d{1,15}$/.test(deliveryId) ? Number(deliveryId) : NaN;
  const message = Number.isSafeInteger(id) ? await deps.outbox.get(id) : undefined;
  if (!message || message.channel !== "webhook" || message.targetNetid !== netid) throw notFound();
  return message;
}

/** A delivery with what each attempt sent and got back. */
export async function webhookDeliveryDetail(deps: Pick<DeliveryDeps, "outbox">, netid: string, deliveryId: string): Promise<DeliveryDetail> {
  const message = await ownDelivery(deps, netid, deliveryId);
  return { message, attempts: await deps.outbox.attemptsOf(message.id) };
}

/** When a failing delivery is tried next (Unix seconds), or null when it is not waiting for a retry. */
export function nextRetryAt(m: OutboxMessage): number | null {
  return m.status === "pending" && m.attempts > 0 ? Math.ceil(m.nextAttemptAt) : null;
}

/**
 * Send a test event: check the company has a verified webhook URL (409 NO_WEBHOOK_URL, 409 WEBHOOK_NOT_VERIFIED:
 * nothing is sent to a URL that has not answered its challenge), spend one of its hourly test events (429
 * WEBHOOK_TEST_LIMITED), queue a signed `ping` and wait (bounded) for its first attempt; the delivery as that
 * attempt left it (still pending when the attempt has not ended in time).
 */
export async function sendTestWebhook(deps: TryWebhookDeps, netid: string): Promise<DeliveryDetail> {
  const integration = await deps.integrations.get(netid);
  if (!integration?.webhookUrl) throw new ConflictError("No webhook URL is set: set one with PUT /api/company/integration first", "NO_WEBHOOK_URL");
  if (integration.webhookVerifiedAt === null)
    throw new ConflictError(
      "Your webhook URL has not answered its challenge yet: nothing is sent there until it does (POST /api/company/integration/webhook-verify)",
      "WEBHOOK_NOT_VERIFIED",
    );
  const budget = await deps.budgets.take(`webhookTest:${netid}`, WEBHOOK_TESTS_PER_HOUR, 3600, deps.clock.now());
  if (!budget.allowed)
    throw new TooManyRequestsError(
      budget.retryAfter,
      `${WEBHOOK_TESTS_PER_HOUR} test events were sent within the hour; retry in ${budget.retryAfter} s`,
      "WEBHOOK_TEST_LIMITED",
    );
  const eventId = deps.newEventId();
  const createdAt = deps.clock.now();
  const body = JSON.stringify({ eventId, type: PING_EVENT_TYPE, createdAt, data: { netid, message: "A test event from TripSwitch: no booking changed." } });
  // Its own event id as the ordering key: a test event waits for no other message, and none waits for it.
  const queued = await deps.outbox.enqueue(
    { eventId, channel: "webhook", eventType: PING_EVENT_TYPE, transactionId: eventId, targetNetid: netid, url: integration.webhookUrl, body },
    Math.floor(deps.dueNow()),
  );
  deps.runner.wake();
  const attempted = await deps.runner.waitForAttempt(eventId, WAIT_FOR_DELIVERY_MS, async () => {
    const now = await deps.outbox.get(queued.id);
    return now && (now.attempts > 0 || now.status !== "pending") ? now : undefined;
  });
  const message = attempted ?? (await deps.outbox.get(queued.id)) ?? queued;
  return { message, attempts: await deps.outbox.attemptsOf(message.id) };
}
