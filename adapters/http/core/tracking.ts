import { Elysia, t } from "elysia";
import type { ChauffeurTracking } from "../../../domain/usecases/track-chauffeur";
import { MAX_BULK_POSITIONS } from "../../../domain/usecases/track-chauffeur";
import { authMacros, type Authenticator } from "../auth";
import { dropNullOptionals } from "../null-fields";
import { documentedResponses, errors } from "../schemas";

const coordinate = (description: string, example: number) => t.Union([t.Number(), t.String({ maxLength: 32 })], { description, examples: [example] });

/** One position as GNet's GGPS service takes it. */
const PositionPush = t.Object(
  {
    transactionId: t.Optional(t.String({ maxLength: 64, description: "The booking's transactionId (or name it by internalBookingId)" })),
    internalBookingId: t.Optional(
      t.String({ maxLength: 100, description: "Your reservation number for the booking (its providerResNo)", examples: ["AC-55102"] }),
    ),
    latitude: t.Optional(coordinate("-90 to 90 (number or string); required", 42.3656)),
    longitude: t.Optional(coordinate("-180 to 180 (number or string); required", -71.0096)),
    locationDateTime: t.Optional(
      t.String({ maxLength: 64, description: "When the device took the fix (ISO 8601); the time received when absent", examples: ["2025-12-11T21:10:00Z"] }),
    ),
    griddid: t.Optional(t.String({ maxLength: 100, description: "Your dispatch system's id" })),
    chfName: t.Optional(t.String({ maxLength: 200, description: "The chauffeur's name" })),
    driverId: t.Optional(t.String({ maxLength: 100, description: "The chauffeur's id (shown as chfId)" })),
    phoneNo: t.Optional(t.String({ maxLength: 64 })),
  },
  { additionalProperties: true },
);

const example = {
  transactionId: "0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20",
  latitude: 42.3656,
  longitude: -71.0096,
  locationDateTime: "2025-12-11T21:10:00Z",
  chfName: "Sam Lee",
  driverId: "CH-12",
};

const PushOk = t.Object({ success: t.Literal(true), data: t.Object({ transactionId: t.String() }) });
const BulkOk = t.Object({
  success: t.Literal(true),
  data: t.Object({
    accepted: t.Integer({ description: "How many positions were kept" }),
    results: t.Array(
      t.Object({
        index: t.Integer(),
        status: t.Union([t.Literal("accepted"), t.Literal("throttled"), t.Literal("not_found")], {
          description: "throttled: this booking already had a position less than a second ago; not_found: no booking of yours",
        }),
        transactionId: t.Optional(t.String()),
        retryAfter: t.Optional(t.Integer({ description: "Seconds, when throttled" })),
      }),
    ),
  }),
});

/** GNet's position push (GGPS.svc): the booking's provider reports where its chauffeur is. */
export function coreTracking(tracking: ChauffeurTracking, auth: Authenticator) {
  return new Elysia({ name: "core-tracking", prefix: "/api/GGPS.svc" })
    .use(authMacros(auth))
    .post("/saveGPScache", async ({ caller, body }) => ({ success: true as const, data: await tracking.push(caller, body) }), {
      anyAuth: true,
      transform: ({ body }) => dropNullOptionals(PositionPush, body),
      body: PositionPush,
      detail: {
        responses: documentedResponses({ 200: PushOk, ...errors(400, 401, 404, 429) }),
        tags: ["Tracking"],
        summary: "Push the chauffeur's position for one booking",
        description:
          "By the booking's provider (`token` header or Bearer JWT). The booking is named by transactionId or by " +
          "internalBookingId (your reservation number). At most one position per booking per second: 429 " +
          "POSITION_THROTTLED with Retry-After beyond. Positions are range-checked (400 naming " +
          "latitude/longitude). Anyone but the provider, and an unknown booking, get the same 404. The requester " +
          "sees the last position in the booking (`tripPacket.location`), through the getChauffeurLocation " +
          "operations and in webhooks (a `booking.location_changed` webhook for the first position, then at most " +
          "every 30 s) — only while the trip is under way.",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    })
    .post(
      "/GPSgrab",
      async ({ caller, body }) => {
        const outcomes = await tracking.pushMany(caller, body);
        return {
          success: true as const,
          data: { accepted: outcomes.filter((o) => o.status === "accepted").length, results: outcomes.map((o, index) => ({ index, ...o })) },
        };
      },
      {
        anyAuth: true,
        transform: ({ body }) => dropNullOptionals(t.Array(PositionPush), body),
        body: t.Array(PositionPush, { maxItems: MAX_BULK_POSITIONS, error: `at most ${MAX_BULK_POSITIONS} positions`, examples: [[example]] }),
        detail: {
          responses: documentedResponses({ 200: BulkOk, ...errors(400, 401) }),
          tags: ["Tracking"],
          summary: "Push up to 100 positions at once",
          description:
            "The same positions as saveGPScache, in one request. The batch is checked whole first (400 naming " +
            "`[i].latitude` etc.; nothing kept then); then each position is kept or refused on its own: " +
            "`results[i].status` accepted, throttled (a position for that booking less than a second ago, the " +
            "earlier one in the batch included) or not_found.",
          security: [{ bearer: [] }, { platformToken: [] }],
        },
      },
    );
}
