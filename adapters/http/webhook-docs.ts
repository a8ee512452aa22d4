import { t } from "elysia";
import { reassignedMembers } from "./core/offers.model";
import { BookingData, RecoveryTiersOut } from "./core/booking.model";
import { FeeSchema, SendTripBody } from "./platform/send-trip.model";
import { TermsOut } from "./core/terms.model";

/**
 * What the service sends out, for the OpenAPI document's `webhooks`: the trip messages POSTed to a provider's
 * delivery endpoint (farm-in), and the booking events POSTed to a requester's webhook URL in either format.
 * The bodies are built in domain/delivery (partner-message.ts, gnet-callback.ts) and by the delivery outbox.
 */

const eventHeaders = {
  "X-TripSwitch-Event-Id": {
    description: "The message's id: the same on every attempt, so a receiver can drop repeats",
    required: true,
    schema: { type: "string", format: "uuid" },
  },
  "X-TripSwitch-Event-Type": { description: "What happened (see the body's description for the values)", required: true, schema: { type: "string" } },
};

const TripMessage = t.Composite(
  [
    t.Omit(SendTripBody, ["submitMode", "status", "transactionId", "affiliateReservation", "acceptWithinMinutes", "fallback"]),
    t.Object({
      status: t.String({ description: "The booking's status", examples: ["BOOKING_REQUEST"] }),
      acceptBy: t.Optional(
        t.String({
          format: "date-time",
          description:
            "NEW and UPDATE: until when you may accept (CONFIRMED or a later status); past it the exchange " +
            "sends CANCEL and the offer is gone. An UPDATE moving the pickup earlier may bring it sooner " +
            "(docs/terms.md#a-moved-pickup-pulls-acceptby-in)",
        }),
      ),
      submitMode: t.Optional(t.String({ description: "As the requester sent it (ASYNC or WAIT)" })),
      reason: t.Optional(
        t.String({
          description:
            "A CANCEL the exchange sends you: OFFER_LAPSED (acceptBy passed unanswered) or DELIVERY_FAILED (you could not " +
            "be reached); docs/terms.md#who-sees-what",
          examples: ["OFFER_LAPSED"],
        }),
      ),
      totalAmount: t.Union([t.String(), t.Null()], {
        description:
          "The booked price as a decimal string: for a booked quote, the chosen option's fee (the option is the " +
          "one line of `fees`); null when none was agreed",
        examples: ["240.00"],
      }),
      terms: t.Optional(TermsOut),
      giveBackRecovery: t.Optional(RecoveryTiersOut),
      affiliateReservation: t.Object(
        {
          requesterId: t.String({ examples: ["BOOKWELL"] }),
          requesterResNo: t.String({ examples: ["BW-883120"] }),
          providerId: t.String({ description: "Your netid", examples: ["ACME-LIMO"] }),
          providerResNo: t.Optional(t.String({ description: "Your reservation number, once you answered one" })),
          action: t.String({ description: "NEW (a trip or a quote request), UPDATE or CANCEL", examples: ["NEW"] }),
          status: t.String({ examples: ["BOOKING_REQUEST"] }),
          notes: t.String({ description: "With `Luggage Count : <n>` appended when your integration's luggage setting is `notes`" }),
        },
        { additionalProperties: true, description: "With any member the requester sent that no schema names" },
      ),
      transactionId: t.String({ format: "uuid", description: "The booking's id in the exchange" }),
      eventId: t.String({ format: "uuid", description: "The same as the X-TripSwitch-Event-Id header" }),
    }),
  ],
  {
    additionalProperties: true,
    description:
      "The requester's trip as sendTrip received it (everything it sent travels, members no schema names " +
      "included), addressed to you. `preferredVehicleType` is in your own words when you mapped the requester's " +
      "type (PUT /api/partners/{netid}/vehicle-types). X-TripSwitch-Event-Type: trip.new, quote.new, trip.update " +
      "or trip.cancel.",
  },
);

const TripMessageReply = t.Object(
  {
    success: t.Optional(
      t.Union([t.Boolean(), t.String()], { description: 'false (or "false") refuses the trip: the attempt counts as failed, with `message` as the reason' }),
    ),
    message: t.Optional(t.String({ description: "Why the trip was refused (kept up to 500 characters)" })),
    reservationId: t.Optional(t.Union([t.String(), t.Number()], { description: "Your reservation number: becomes the booking's providerResNo" })),
    totalAmount: t.Optional(
      t.Union([t.String(), t.Number()], {
        description:
          "Your price: becomes the booking's totalAmount, in the booking's currency's minor unit (the currency your " +
          "fee lines name, else the booking's; JPY none, BHD 3, most 2; two decimals without one), rounded half up as " +
          'quotes are: 7200.4 on a JPY booking becomes "7200"',
      }),
    ),
    fees: t.Optional(
      t.Array(FeeSchema, {
        maxItems: 50,
        description:
          "Your fee lines: become the booking's fees, each `fee` in the minor unit of the line's currency (else the " + "booking's), rounded half up",
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      "Any 2xx accepts the trip; every member is optional. A non-2xx answer, a timeout (10 s) or success:false is a " + "failed attempt, retried with backoff.",
  },
);

const BookingEvent = t.Object(
  {
    eventId: t.String({ format: "uuid", description: "The same as the X-TripSwitch-Event-Id header" }),
    type: t.String({
      description:
        "booking.created, quote.created, booking.updated, booking.cancelled, booking.status_changed, " +
        "booking.details_changed, booking.provider_reference, booking.delivery_failed (the first failed attempt to " +
        "the provider's endpoint: affiliateReservation.status FAILED while retries go on; again when it fails for " +
        "good), booking.delivery_recovered (a later attempt succeeded: affiliateReservation.status is the " +
        "booking's status again), booking.delivery_retried, booking.location_changed, booking.reassigned (to the " +
        "requester: the cascade moved the booking to another provider — `from`, `to`, `reason`, `priceChange`, " +
        "`termsChanged`; docs/terms.md#the-cascade-fallback), booking.pickup_moved (a flight moved the pickup: `from`, " +
        "`to`, `cause`; docs/flights.md#the-pickup-follows-the-flight), booking.pickup_move_blocked (the move was " +
        "refused, the vehicle being held at the new hour: the same members), booking.arrived (the chauffeur's positions put it at the " +
        "pickup: `data.arrivedAt`, `data.flags`; docs/flights.md#arrival), booking.withdrawn (to a provider whose " +
        "offer ended: `reason`, and `data` its own offer as its read shows it; docs/terms.md#who-sees-what), " +
        "booking.fare_final (the fare is FINAL: 24 h after COMPLETE or CLOSE no line changes any more, " +
        "`tripPacket.finalFare.state` FINAL; sent once; docs/settlement.md#the-final-fare), " +
        "booking.unassigned_warning (to both parties: an accepted booking has no chauffeur at `terms.assignBy` — " +
        "`reservationId`, `requesterResNo`, `providerResNo`, `pickupAt`, `assignBy`, `minutesLeft`; sent once per " +
        "deadline; docs/terms.md#the-assignment-deadline)",
      examples: ["booking.status_changed"],
    }),
    createdAt: t.Number({ description: "When the change happened, Unix seconds" }),
    ...reassignedMembers,
    data: BookingData,
  },
  {
    description:
      "The booking's new state after one change, as GET /api/reservation/{transactionId} shows it to you (webhook format " +
      "`events`, the default): a provider sees only its own offer, never the requester's fallback.",
  },
);

const nullable = <T extends ReturnType<typeof t.Object>>(schema: T) => t.Union([schema, t.Null()]);
const open = { additionalProperties: true };

const GnetCallback = t.Object(
  {
    transactionId: t.String({ format: "uuid" }),
    status: t.String({ examples: ["ASSIGNED"] }),
    totalAmount: t.Union([t.String(), t.Null()]),
    affiliateReservation: t.Object(
      {
        updateTime: t.String({ description: "ISO 8601: the booking's last change" }),
        notes: t.String({ description: "With the delivery failure's reason appended when delivery failed" }),
        requesterId: t.String(),
        requesterResNo: t.String(),
        providerId: t.String(),
        providerResNo: t.String({ description: '"" until known' }),
        providerResCode: t.String({ description: "The same as providerResNo" }),
        action: t.String(),
        submissionTarget: t.String(),
        status: t.String({ description: "FAILED when delivery to the provider failed, else the booking's status" }),
      },
      open,
    ),
    fees: t.Array(t.Object({}, open)),
    terms: t.Optional(TermsOut),
    vehicle: nullable(t.Object({ vehicleType: t.Optional(t.String()), plateNo: t.Optional(t.String()), vColor: t.Optional(t.String()) }, open)),
    location: nullable(t.Object({ lat: t.Number(), lon: t.Number(), timestamp: t.String() })),
    chauffeur: nullable(t.Object({}, open)),
    providerNote: t.String(),
  },
  { description: "GNet's callback body (webhook format `gnet`), for listeners written for GNet; absent details are null." },
);

const WebhookChallenge = t.Object(
  {
    eventId: t.String({ format: "uuid", description: "Also in X-TripSwitch-Event-Id (and signed by v2)" }),
    type: t.Literal("webhook.verify"),
    createdAt: t.Number({ description: "Unix seconds" }),
    challenge: t.String({ description: "Random; echo it back", examples: ["kQ3v0cV9m1yB7pXo2dR4sT6uW8zA1cE3"] }),
  },
  { description: "The challenge a new webhook URL must answer before any booking is POSTed there" },
);

const signatureParameter = {
  name: "X-TripSwitch-Signature",
  in: "header" as const,
  required: false,
  description: "`t=<unix seconds>,v1=<hex>,v2=<hex>` when you have a webhook secret: v1 signs `<t>.<body>`, v2 signs `<t>.<event id>.<body>`",
  schema: { type: "string" },
};

const delivered = { "2XX": { description: "Received. Anything else (or no answer within 10 s) is retried with backoff." } };

/** The OpenAPI 3.1 `webhooks` object. */
export const webhookDocs = {
  tripDelivery: {
    post: {
      operationId: "tripDelivery",
      tags: ["Integration"],
      summary: "A trip for you (farm-in), POSTed to your delivery endpoint",
      description:
        "Sent for every NEW, quote request, UPDATE and CANCEL a requester sends you, to the delivery URL of your " +
        "integration (PUT /api/company/integration), with Basic authentication when you set `deliveryAuth`. Your " +
        "answer can carry your reservation number, price and fees. A requester's sendTrip with submitMode WAIT " +
        "answers what your endpoint answered to the first attempt.",
      security: [],
      parameters: [
        ...Object.entries(eventHeaders).map(([name, h]) => ({ name, in: "header" as const, ...h })),
        {
          name: "Authorization",
          in: "header" as const,
          required: false,
          description: "`Basic <base64(username:password)>` when your integration has deliveryAuth",
          schema: { type: "string" },
        },
      ],
      requestBody: { required: true, content: { "application/json": { schema: TripMessage } } },
      responses: {
        "2XX": { description: "Accepted", content: { "application/json": { schema: TripMessageReply } } },
        "4XX": { description: "Refused: a failed attempt, retried with backoff" },
      },
    },
  },
  bookingEvent: {
    post: {
      operationId: "bookingEvent",
      tags: ["Integration"],
      summary: "Your booking changed, POSTed to your webhook URL",
      description:
        "One message per change of a booking you requested, to the webhook URL of your integration; and, to a " +
        "provider, `booking.withdrawn` when its offer of a booking ended (it declined, let acceptBy pass, gave the " +
        "booking back, or the cascade moved the booking on; docs/terms.md#who-sees-what). The body is " +
        "the `events` format (default) or, with `webhookFormat: gnet`, GNet's callback. Signed when you have a " +
        'webhook secret: X-TripSwitch-Signature `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,v2=<hex ' +
        'HMAC-SHA256 of "<t>.<X-TripSwitch-Event-Id>.<raw body>">`; check v2 (it also covers the event id, which ' +
        "a GNet-shaped body does not carry; v1 is kept for existing receivers) in constant time and refuse old " +
        "timestamps. Failed deliveries are retried with backoff and can be replayed (POST " +
        "/api/webhooks/deliveries/{id}/replay).",
      security: [],
      parameters: [...Object.entries(eventHeaders).map(([name, h]) => ({ name, in: "header" as const, ...h })), signatureParameter],
      requestBody: { required: true, content: { "application/json": { schema: t.Union([BookingEvent, GnetCallback]) } } },
      responses: { ...delivered, "4XX": { description: "Refused: a failed attempt, retried with backoff" } },
    },
  },
  webhookVerify: {
    post: {
      operationId: "webhookVerify",
      tags: ["Integration"],
      summary: "Prove a new webhook URL is yours: echo the challenge",
      description:
        "POSTed to a webhook URL when it is set (PUT /api/company/integration) and on POST " +
        "/api/company/integration/webhook-verify, with X-TripSwitch-Event-Type `webhook.verify` and signed like " +
        'every webhook. Check the signature (v2), then answer 2xx with `{"challenge": "<the challenge>"}` ' +
        "within 5 s. Until the URL has answered, no booking is POSTed there and booking events of that time are " +
        "not sent.",
      security: [],
      parameters: [...Object.entries(eventHeaders).map(([name, h]) => ({ name, in: "header" as const, ...h })), signatureParameter],
      requestBody: { required: true, content: { "application/json": { schema: WebhookChallenge } } },
      responses: {
        "2XX": {
          description: "The challenge echoed: the URL is verified",
          content: { "application/json": { schema: t.Object({ challenge: t.String() }) } },
        },
      },
    },
  },
};
