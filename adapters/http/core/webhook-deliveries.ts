import { Elysia, t } from "elysia";
import { replayWebhook, webhookDeliveries, type DeliveryDeps } from "../../../domain/usecases/deliver-booking";
import {
  nextRetryAt,
  PING_EVENT_TYPE,
  sendTestWebhook,
  webhookDeliveryDetail,
  WEBHOOK_TESTS_PER_HOUR,
  type DeliveryDetail,
  type TryWebhookDeps,
} from "../../../domain/usecases/try-webhook";
import type { OutboxMessage } from "../../../domain/delivery/ports";
import { errors } from "../schemas";
import { authMacros, type Authenticator } from "../auth";
import { Paging, parsePaging } from "../paging";

const Delivery = t.Object({
  id: t.Number(),
  eventId: t.String(),
  eventType: t.String({ description: "The webhook event type (`ping` for a test event)" }),
  transactionId: t.String({ description: "The booking the event is about (empty for a test event)" }),
  url: t.String(),
  status: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")]),
  attempts: t.Number(),
  lastStatus: t.Union([t.Number(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  createdAt: t.Number({ description: "Unix seconds" }),
  deliveredAt: t.Union([t.Number(), t.Null()]),
  nextRetryAt: t.Union([t.Number(), t.Null()], {
    description: "When a failing delivery is tried again (Unix seconds); null when delivered, given up, or not attempted yet",
  }),
});

const Attempt = t.Object({
  at: t.Number({ description: "When the attempt ended, Unix seconds" }),
  durationMs: t.Number({ description: "From the start of the attempt to its answer (or failure), milliseconds" }),
  request: t.Union(
    [t.Object({ headers: t.Record(t.String(), t.String(), { description: "The headers sent (the signature included; never a credential)" }) }), t.Null()],
    {
      description: "What was sent (the body is the delivery's `body`); null when nothing was sent (the URL was refused at the send)",
    },
  ),
  response: t.Union(
    [
      t.Object({
        status: t.Number(),
        body: t.String({ description: "The answer's first 4 KiB, as text" }),
        truncated: t.Boolean({ description: "The answer was longer" }),
      }),
      t.Null(),
    ],
    {
      description: "What came back; null when no answer came (connection failed, timeout)",
    },
  ),
  error: t.Union([t.String(), t.Null()], { description: "Why the attempt failed (an error status, no answer, refused); null when it succeeded" }),
});

const DeliveryDetailView = t.Composite([
  Delivery,
  t.Object({
    body: t.String({ description: "The request body sent (the same on every attempt)" }),
    attemptLog: t.Array(Attempt, { description: "The newest attempts (at most 20), newest first" }),
  }),
]);

const detailExample = {
  success: true,
  data: {
    id: 42,
    eventId: "0b9f3c1e-8d4a-4f3e-9a51-6d0c2b7e1f20",
    eventType: "ping",
    transactionId: "",
    url: "https://you.example/tripswitch-hooks",
    status: "delivered",
    attempts: 1,
    lastStatus: 200,
    lastError: null,
    createdAt: 1795650000,
    deliveredAt: 1795650000,
    nextRetryAt: null,
    body:
      '{"eventId":"0b9f3c1e-8d4a-4f3e-9a51-6d0c2b7e1f20","type":"ping","createdAt":1795650000,"data":{"netid":"BOOKWELL","message":"A ' +
      'test event from TripSwitch: no booking changed."}}',
    attemptLog: [
      {
        at: 1795650000,
        durationMs: 84,
        request: {
          headers: {
            "content-type": "application/json",
            "user-agent": "TripSwitch-Delivery/1.0",
            "content-length": "167",
            "x-tripswitch-event-id": "0b9f3c1e-8d4a-4f3e-9a51-6d0c2b7e1f20",
            "x-tripswitch-event-type": "ping",
            "x-tripswitch-signature": "t=1795650000,v1=5d41…,v2=9c1e…",
          },
        },
        response: { status: 200, body: '{"ok":true}', truncated: false },
        error: null,
      },
    ],
  },
};

/** A delivery as the log shows it. */
export const toDelivery = (m: OutboxMessage) => ({
  id: m.id,
  eventId: m.eventId,
  eventType: m.eventType,
  transactionId: m.eventType === PING_EVENT_TYPE ? "" : m.transactionId,
  url: m.url,
  status: m.status,
  attempts: m.attempts,
  lastStatus: m.lastStatus,
  lastError: m.lastError,
  createdAt: m.createdAt,
  deliveredAt: m.deliveredAt,
  nextRetryAt: nextRetryAt(m),
});

const toDetail = ({ message, attempts }: DeliveryDetail) => ({
  ...toDelivery(message),
  body: message.body,
  attemptLog: attempts.map((a) => ({
    at: a.at,
    durationMs: a.durationMs,
    request: a.requestHeaders ? { headers: a.requestHeaders } : null,
    response: a.responseStatus === null ? null : { status: a.responseStatus, body: a.responseBody ?? "", truncated: a.responseTruncated },
    error: a.error,
  })),
});

const security = [{ bearer: [] }];

/** The OpenAPI details of a delivery-log route (tag Integration, bearer token). */
const doc = (summary: string, description: string) => ({ tags: ["Integration"], summary, description, security });

/** A delivery's id in the path. */
const DeliveryId = t.Object({ id: t.String({ maxLength: 20 }) });

/** The caller's webhook delivery log: list, detail with each attempt's request and answer, replay, and a test event. */
export function coreWebhookDeliveries(auth: Authenticator, delivery: DeliveryDeps, tryDeps: TryWebhookDeps) {
  return new Elysia({ name: "core-webhook-deliveries", prefix: "/api/webhooks" })
    .use(authMacros(auth))
    .get(
      "/deliveries",
      async ({ caller, query }) => {
        const { limit, offset } = parsePaging(query);
        const { items, total } = await webhookDeliveries(delivery, caller.netid, limit, offset);
        return { success: true as const, data: { items: items.map(toDelivery), total, limit, offset } };
      },
      {
        coreAuth: true,
        query: Paging,
        response: {
          200: t.Object({ success: t.Literal(true), data: t.Object({ items: t.Array(Delivery), total: t.Number(), limit: t.Number(), offset: t.Number() }) }),
          ...errors(400, 401),
        },
        detail: doc("Your webhook deliveries, newest first", "GET /api/webhooks/deliveries/{id} shows what each attempt sent and got back."),
      },
    )
    .get(
      "/deliveries/:id",
      async ({ caller, params }) => ({ success: true as const, data: toDetail(await webhookDeliveryDetail(delivery, caller.netid, params.id)) }),
      {
        coreAuth: true,
        params: DeliveryId,
        response: { 200: t.Object({ success: t.Literal(true), data: DeliveryDetailView }, { examples: [detailExample] }), ...errors(401, 404) },
        detail: doc(
          "One webhook delivery: the request sent and what came back, per attempt",
          "The delivery with its body and its newest attempts (at most 20, newest first): the headers sent (with " +
            "X-TripSwitch-Signature; never a credential), the answer's status and first 4 KiB, how long it took, or " +
            "why it failed (no answer, refused). `nextRetryAt` says when a failing delivery is tried again. Attempts " +
            "are kept as long as the delivery (delivered ones are pruned after 7 days). 404 DELIVERY_NOT_FOUND for " +
            "an id that is not one of your webhook deliveries.",
        ),
      },
    )
    .post(
      "/deliveries/:id/replay",
      async ({ caller, params }) => ({ success: true as const, data: toDelivery(await replayWebhook(delivery, caller.netid, params.id)) }),
      {
        coreAuth: true,
        params: DeliveryId,
        response: { 200: t.Object({ success: t.Literal(true), data: Delivery }), ...errors(401, 404, 429) },
        detail: doc(
          "Send a webhook delivery again, with the same event id",
          "Queues the delivery again (same event id, sent to the URL it was made for, signed anew). At most 5 " +
            "replays of one delivery within an hour (one more every 12 minutes): beyond that 429 REPLAY_LIMITED " +
            "with Retry-After (seconds). 404 DELIVERY_NOT_FOUND for an id that is not one of your webhook " +
            "deliveries.",
        ),
      },
    )
    .post("/test", async ({ caller }) => ({ success: true as const, data: toDetail(await sendTestWebhook(tryDeps, caller.netid)) }), {
      coreAuth: true,
      response: { 200: t.Object({ success: t.Literal(true), data: DeliveryDetailView }, { examples: [detailExample] }), ...errors(401, 409, 429) },
      detail: doc(
        "Send a signed test event (`ping`) to your webhook URL",
        `Queues a \`ping\` event \`{eventId, type: "ping", createdAt, data: {netid, message}}\` for your webhook ` +
          `URL and waits (at most 12 s) for its first attempt; the answer is the delivery as GET ` +
          `/api/webhooks/deliveries/{id} shows it: \`status\` delivered, or pending with \`nextRetryAt\` while it ` +
          `is retried like any webhook, and the attempt's request and answer. It travels the way booking events ` +
          `do: signed (X-TripSwitch-Signature v1 and v2, X-TripSwitch-Event-Type \`ping\`), the URL checked again ` +
          `at the send (private and special addresses refused), never to a URL that has not answered its ` +
          `challenge. 409 NO_WEBHOOK_URL without a webhook URL, 409 WEBHOOK_NOT_VERIFIED before it answered its ` +
          `challenge; at most ${WEBHOOK_TESTS_PER_HOUR} test events per company an hour (one more every 6 ` +
          `minutes): beyond that 429 WEBHOOK_TEST_LIMITED with Retry-After (seconds).`,
      ),
    });
}
