import type { Caller } from "../../../domain/ports";
import { Elysia, t } from "elysia";
import { getIntegration, rotateWebhookSecret, updateIntegration, verifyWebhook, type IntegrationDeps } from "../../../domain/usecases/integration";
import { errors } from "../schemas";
import { RecoveryTiersOut } from "./booking.model";
import { alongTypeErrors } from "../body-checks";
import { unknownIntegrationMembers, validateIntegrationPatch } from "../../../domain/delivery/integration";
import { ValidationError, type FieldError } from "../../../domain/errors";
import { authMacros, type Authenticator } from "../auth";
import type { AddressOf } from "./accounts";

const Tier = t.Object({
  beforeMinutes: t.Integer({ minimum: 0, maximum: 43200, description: "Cancelling until this many minutes before the pickup costs `percent`" }),
  percent: t.Integer({ minimum: 0, maximum: 100, description: "Percent of the fare" }),
});

const PoliciesView = t.Object(
  {
    cancellation: t.Array(Tier, {
      description:
        "Cancellation tiers, the earliest first, each costing more than the one before (default free until 1 h before " +
        "the pickup, then 100%; until you set your own, an HOURLY trip is free until 24 h before)",
      examples: [[{ beforeMinutes: 1440, percent: 0 }, { beforeMinutes: 120, percent: 50 }, { beforeMinutes: 0, percent: 100 }]],
    }),
    freeWaitingMinutes: t.Object(
      { airport: t.Integer({ minimum: 0, maximum: 1440, examples: [60] }), other: t.Integer({ minimum: 0, maximum: 1440, examples: [15] }) },
      { description: "Minutes the chauffeur waits free: at an airport pickup (default 60), elsewhere (default 15)" },
    ),
    acceptWithinMinutes: t.Optional(
      t.Integer({
        minimum: 5,
        maximum: 1440,
        description: "Your own answer time: a new booking's acceptBy is at most this many minutes after it (absent: not set)",
        examples: [20],
      }),
    ),
    waitingRate: t.Optional(
      t.Object(
        {
          amount: t.String({ description: "A decimal amount above 0 (at most 1,000,000.00), in your fare's currency", examples: ["30.00"] }),
          perMinutes: t.Integer({ minimum: 1, maximum: 240, description: "Per started period of this many minutes (default 15)", examples: [15] }),
        },
        { description: "Waiting beyond the free minutes: one WAITING line per started period (absent: free; docs/flights.md#waiting-and-no-show)" },
      ),
    ),
    etaSpeedKmh: t.Integer({
      minimum: 5,
      maximum: 150,
      description: "The speed your chauffeurs' ETA assumes, km/h (default 40; docs/flights.md#eta)",
      examples: [40],
    }),
    assignBeforeMinutes: t.Integer({
      minimum: 0,
      maximum: 1440,
      description:
        "You assign a chauffeur this many minutes before the pickup (default 120): a booking you accepted without one by then " +
        "warns both parties, booking.unassigned_warning (docs/terms.md#the-assignment-deadline)",
      examples: [120],
    }),
  },
  { description: "Your terms: every quote option and booking of yours carries the terms they give (see docs/terms.md#policies)" },
);

const IntegrationView = t.Object({
  deliveryUrl: t.Union([t.String(), t.Null()], { description: "Your farm-in endpoint: every NEW/UPDATE/CANCEL/QUOTE sent to you is POSTed here" }),
  deliveryAuth: t.Union([t.Object({ username: t.String() }), t.Null()], { description: "Basic auth user sent with deliveries (the password is never shown)" }),
  luggage: t.Union([t.Literal("native"), t.Literal("notes")], { description: "notes (default): the delivered copy's notes also get `Luggage Count : <n>`" }),
  webhookUrl: t.Union([t.String(), t.Null()], { description: "Receives the new state of your bookings on every change" }),
  webhookFormat: t.Union([t.Literal("events"), t.Literal("gnet")], {
    description:
      "events (default): {eventId, type, createdAt, data: booking}; gnet: GNet's callback body at the top level " +
      "(transactionId, status, totalAmount, affiliateReservation, fees, vehicle, location, chauffeur, " +
      "providerNote). Both signed the same way.",
  }),
  acceptTripsFrom: t.Union([t.Literal("anyone"), t.Literal("partners")], {
    description:
      "anyone (default): every registered company may send you trips and quote requests; partners: only your " +
      "active partners (others get 403 NOT_PARTNER). Bookings already made stay manageable (UPDATE, CANCEL) when a " +
      "partnership ends.",
  }),
  serviceRadiusKm: t.Integer({
    minimum: 1,
    maximum: 500,
    description:
      "How far from a pickup (km) your vehicles serve it (default 50): a QUOTE sent to you offers your active " +
      "vehicles that list the pickup airport or stand within this distance of the pickup",
    examples: [50],
  }),
  turnaroundMinutes: t.Integer({
    minimum: 0,
    maximum: 720,
    description: "Minutes a vehicle booked from a quote stays held after the trip's estimated end (default 30)",
    examples: [30],
  }),
  minimumNoticeMinutes: t.Integer({
    minimum: 0,
    maximum: 10080,
    description: "A pickup sooner than this many minutes from now leaves you out of quotes, warning SHORT_NOTICE (default 0)",
    examples: [0],
  }),
  maxTripKm: t.Integer({
    minimum: 1,
    maximum: 5000,
    description: "The longest road distance (km) you quote: a longer trip leaves you out of quotes, warning TRIP_TOO_LONG (default 800)",
    examples: [800],
  }),
  displayCurrency: t.Union([t.String(), t.Null()], {
    description:
      "The currency your network quotes (POST /api/quotes) show each option converted into (`converted`) and rank by, " +
      "unless a quote asks for another with `currency`; null: none set",
    examples: ["EUR"],
  }),
  policies: PoliciesView,
  giveBackRecovery: RecoveryTiersOut,
  webhookSecretSet: t.Boolean(),
  webhookSecret: t.Optional(t.String({ description: "The signing secret — shown only when created or rotated" })),
  webhookVerified: t.Boolean({
    description:
      "Whether webhookUrl answered the signed `webhook.verify` challenge. Until it has, no booking is POSTed there " + "(events of that time are not sent).",
  }),
  webhookVerification: t.Optional(t.String({ description: "Why the challenge this request sent failed (only in that answer)" })),
});

const IntegrationAnswer = t.Object({ success: t.Literal(true), data: IntegrationView });

/** The patch's other failing fields, beside its unknown members (none when its types are too wrong to check). */
function otherProblems(body: unknown, unknown: FieldError[]): FieldError[] {
  try {
    const checked = validateIntegrationPatch(body as never);
    return checked.ok ? [] : checked.errors.filter((e) => !unknown.some((u) => u.field === e.field));
  } catch {
    return [];
  }
}

/** The OpenAPI details of an integration route (tag Integration, bearer token); a description only where given. */
const doc = (summary: string, description?: string) => ({
  tags: ["Integration"],
  summary,
  ...(description === undefined ? {} : { description }),
  security: [{ bearer: [] }],
});

/** Integration settings of the caller's company (its webhook delivery log: webhook-deliveries.ts). */
export function coreIntegration(auth: Authenticator, deps: IntegrationDeps, addressOf: AddressOf) {
  // Who changed the integration, for the audit trail.
  const actor = (caller: Caller, request: Request) => ({ uid: caller.uid, address: addressOf(request) });
  return new Elysia({ name: "core-integration", prefix: "/api" })
    .use(authMacros(auth))
    .get("/company/integration", async ({ caller }) => ({ success: true as const, data: await getIntegration(deps, caller.netid) }), {
      coreAuth: true,
      response: { 200: IntegrationAnswer, ...errors(401) },
      detail: doc("Your delivery endpoint and webhook settings (without secrets)"),
    })
    .put(
      "/company/integration",
      async ({ caller, body, request }) => ({ success: true as const, data: await updateIntegration(deps, caller.netid, body, actor(caller, request)) }),
      {
        coreAuth: true,
        transform: ({ request, body }) => {
          // Members no setting names are dropped by the schema before the handler: refused here, naming each
          // (docs/integration.md#integration-settings), with every other failing field.
          const unknown = unknownIntegrationMembers(body);
          if (unknown.length > 0) throw new ValidationError([...unknown, ...otherProblems(body, unknown)]);
          alongTypeErrors((sent) => {
            const checked = validateIntegrationPatch(sent as never);
            return checked.ok ? [] : checked.errors;
          })({ request, body });
        },
        body: t.Object(
          {
            deliveryUrl: t.Optional(t.Union([t.String({ maxLength: 4096 }), t.Null()])),
            deliveryAuth: t.Optional(t.Union([t.Object({ username: t.String({ maxLength: 1000 }), password: t.String({ maxLength: 1000 }) }), t.Null()])),
            luggage: t.Optional(t.String({ maxLength: 20, examples: ["notes"] })),
            webhookUrl: t.Optional(t.Union([t.String({ maxLength: 4096 }), t.Null()])),
            webhookFormat: t.Optional(
              t.String({ maxLength: 20, description: "events (default) or gnet: the body your webhook URL receives", examples: ["gnet"] }),
            ),
            acceptTripsFrom: t.Optional(
              t.String({ maxLength: 20, description: "anyone (default) or partners: who may send you new trips and quote requests", examples: ["partners"] }),
            ),
            serviceRadiusKm: t.Optional(
              t.Union([t.Number(), t.Null()], {
                description: "Whole kilometres, 1–500 (null: back to the default, 50): how far from a pickup your vehicles serve " + "it in quotes",
                examples: [80],
              }),
            ),
            turnaroundMinutes: t.Optional(
              t.Union([t.Number(), t.Null()], {
                description: "Whole minutes, 0–720 (null: back to 30): how long a booked vehicle stays held after the trip",
                examples: [45],
              }),
            ),
            minimumNoticeMinutes: t.Optional(
              t.Union([t.Number(), t.Null()], {
                description: "Whole minutes, 0–10,080 (null: back to 0): the shortest notice you quote at",
                examples: [120],
              }),
            ),
            displayCurrency: t.Optional(
              t.Union([t.String({ maxLength: 20 }), t.Null()], {
                description: "An ISO 4217 code in capitals (null or \"\": none): the currency your network quotes show converted amounts in",
                examples: ["EUR"],
              }),
            ),
            policies: t.Optional(
              t.Unknown({
                description:
                  "Your terms: {cancellation: [{beforeMinutes 0–43,200, percent 0–100}] (1–10 tiers, distinct beforeMinutes, " +
                  "each costing more as the pickup nears — else 400 naming policies.cancellation; null: the default), " +
                  "freeWaitingMinutes: {airport, other} (0–1,440 each; a figure left out is kept, null resets it), " +
                  "acceptWithinMinutes (5–1,440: your own answer time, which shortens acceptBy; null removes it), " +
                  "waitingRate: {amount (a decimal above 0, at most 1,000,000.00, your fare's currency), perMinutes (1–240, " +
                  "default 15)} (null removes it), etaSpeedKmh (5–150, default 40; null: back to the default), " +
                  "assignBeforeMinutes (0–1,440, default 120: you assign a chauffeur this long before the pickup; null: back " +
                  "to the default)}; null " +
                  "resets every policy; a bad member is 400 naming it (policies.waitingRate.amount). Bookings keep the " +
                  "terms they were made under.",
                examples: [
                  {
                    cancellation: [
                      { beforeMinutes: 180, percent: 0 },
                      { beforeMinutes: 60, percent: 50 },
                      { beforeMinutes: 0, percent: 100 },
                    ],
                    freeWaitingMinutes: { airport: 45, other: 10 },
                    acceptWithinMinutes: 20,
                    etaSpeedKmh: 40,
                    assignBeforeMinutes: 120,
                  },
                ],
              }),
            ),
            maxTripKm: t.Optional(
              t.Union([t.Number(), t.Null()], {
                description: "Whole kilometres, 1–5,000 (null: back to 800): the longest road distance (great circle × 1.3) you quote",
                examples: [400],
              }),
            ),
            giveBackRecovery: t.Optional(
              t.Unknown({
                description:
                  "As a requester: what a provider owes you when it gives a booking back after accepting it " +
                  "(docs/settlement.md#give-back-recovery): 1–10 tiers {beforeMinutes 0–43,200 (distinct), percent 0–100}; " +
                  "each bad field is 400 naming it (giveBackRecovery[1].percent); null: back to the default",
                examples: [
                  [
                    { beforeMinutes: 1440, percent: 0 },
                    { beforeMinutes: 120, percent: 50 },
                    { beforeMinutes: 0, percent: 100 },
                  ],
                ],
              }),
            ),
          },
          {
            description:
              "Each field optional: absent keeps the current value, null clears it; any other member is 400 naming it " +
              "(a setting that would change nothing)",
          },
        ),
        response: { 200: IntegrationAnswer, ...errors(400, 401, 429) },
        detail: doc(
          "Set your delivery endpoint, luggage support, webhook URL, who may send you trips and your service radius",
          "The first time a webhook URL is set, the answer carries `webhookSecret` — store it: it is never shown " +
            "again (rotate to get a new one). A new webhook URL must prove it is yours before anything is sent " +
            'there: this request POSTs it a `webhook.verify` event `{eventId, type: "webhook.verify", createdAt, ' +
            "challenge}`, signed like every webhook (X-TripSwitch-Signature, with the secret in this answer or your " +
            'current one), and your endpoint answers 2xx `{"challenge": "<the challenge>"}` within 5 s. The ' +
            "answer says `webhookVerified` (and, when it failed, `webhookVerification`: why); fix the endpoint and " +
            "POST /api/company/integration/webhook-verify. At most 10 challenges per company an hour (429 " +
            "RATE_LIMITED, Retry-After). A URL whose host is or resolves to a loopback, private, link-local " +
            "(169.254.169.254), CGNAT, unique-local or other special address, in any spelling, is a 400 naming " +
            "`deliveryUrl` or `webhookUrl` (checked again at each send; redirects are not followed); with " +
            "NODE_ENV=production public targets must use https.",
        ),
      },
    )
    .post(
      "/company/integration/webhook-verify",
      async ({ caller, request }) => ({ success: true as const, data: await verifyWebhook(deps, caller.netid, actor(caller, request)) }),
      {
        coreAuth: true,
        response: { 200: IntegrationAnswer, ...errors(401, 409, 429) },
        detail: doc(
          "Send your webhook URL the signed challenge again",
          "POSTs a new `webhook.verify` challenge to your webhook URL (see PUT /api/company/integration); " +
            "`webhookVerified` says whether it was echoed, `webhookVerification` why not. 409 NO_WEBHOOK_URL when " +
            "none is set; 429 RATE_LIMITED (Retry-After) past 10 challenges an hour.",
        ),
      },
    )
    .post(
      "/company/integration/webhook-secret",
      async ({ caller, request }) => ({ success: true as const, data: await rotateWebhookSecret(deps, caller.netid, actor(caller, request)) }),
      {
        coreAuth: true,
        response: { 200: IntegrationAnswer, ...errors(401) },
        detail: doc("Rotate the webhook signing secret (the new one is in this answer only)"),
      },
    );
}
