import { Elysia, t } from "elysia";
import {
  addBlackout,
  listBlackouts,
  removeBlackout,
  vehicleSchedule,
  type AvailabilityDeps,
} from "../../../domain/usecases/availability";
import { errors } from "../schemas";
import { authMacros, type Authenticator } from "../auth";

const security = [{ bearer: [] }];
const SlugParams = t.Object({ slug: t.String({ maxLength: 200, description: "The vehicle's slug (one of your fleet entries)" }) });

const Hold = t.Object({
  id: t.String({ description: "The blackout's id, or the booking hold's own id" }),
  kind: t.Union([t.Literal("BOOKING"), t.Literal("BLACKOUT")], {
    description: "BOOKING: a live booking made from a quote option (an unaccepted one until its acceptBy); BLACKOUT: blocked by you",
  }),
  transactionId: t.Optional(t.String({ description: "BOOKING: the booking that holds the vehicle" })),
  from: t.String({ description: "UTC instant the hold starts (the pickup time for a booking)", examples: ["2030-05-01T08:00:00Z"] }),
  to: t.String({
    description: "UTC instant it ends (a booking: the estimated end of the trip plus your turnaroundMinutes)",
    examples: ["2030-05-01T10:30:00Z"],
  }),
  reason: t.Optional(t.Union([t.String(), t.Null()], { description: "BLACKOUT: why, as you gave it" })),
});

const BlackoutBody = t.Object(
  {
    from: t.Optional(t.Unknown({ description: "Required. UTC ISO 8601 instant with a zone (Z or ±hh:mm)", examples: ["2030-05-01T08:00:00Z"] })),
    to: t.Optional(t.Unknown({ description: "Required. After from, at most 366 days after it", examples: ["2030-05-01T18:00:00Z"] })),
    reason: t.Optional(t.Unknown({ description: "Optional text, at most 500 characters", examples: ["Annual service"] })),
  },
  { description: "The span to block the vehicle over" },
);

/**
 * A vehicle's availability (docs/availability.md): blackouts its owner sets, and its schedule (the live bookings made from
 * quote options that hold it, and the blackouts). Quotes leave a held vehicle out; booking it is 409 VEHICLE_UNAVAILABLE.
 */
export function coreAvailability(deps: AvailabilityDeps, auth: Authenticator) {
  return new Elysia({ name: "core-availability", prefix: "/api/fleet" })
    .use(authMacros(auth))
    .post(
      "/:slug/blackouts",
      async ({ params, caller, body, set }) => {
        set.status = 201;
        return { success: true as const, data: await addBlackout(deps, caller, params.slug, (body ?? {}) as Record<string, unknown>) };
      },
      {
        coreAuth: true,
        params: SlugParams,
        body: BlackoutBody,
        response: { 201: t.Object({ success: t.Literal(true), data: Hold }), ...errors(400, 401, 404, 429) },
        detail: {
          tags: ["Fleet"],
          summary: "Block one of your vehicles for a while (a blackout)",
          description:
            "Quotes of both kinds (sendTrip QUOTE, POST /api/quotes) leave the vehicle out while a blackout overlaps the " +
            "trip (warning VEHICLES_BUSY), and booking it from an earlier quote is 409 VEHICLE_UNAVAILABLE. Bookings made " +
            "before the blackout stay as they are. 400 names each failing field (from, to, reason); nothing is saved. " +
            "A vehicle keeps at most 200 live blackouts and a company 10,000 (docs/availability.md#how-many-blackouts): " +
            "past either, 429 BLACKOUT_LIMIT with Retry-After (until the earliest ends), nothing saved.",
          security,
        },
      },
    )
    .get(
      "/:slug/blackouts",
      async ({ params, caller }) => ({ success: true as const, data: await listBlackouts(deps, caller, params.slug) }),
      {
        coreAuth: true,
        params: SlugParams,
        response: { 200: t.Object({ success: t.Literal(true), data: t.Array(Hold) }), ...errors(401, 404) },
        detail: { tags: ["Fleet"], summary: "List a vehicle's blackouts, earliest first", security },
      },
    )
    .delete(
      "/:slug/blackouts/:id",
      async ({ params, caller }) => {
        await removeBlackout(deps, caller, params.slug, params.id);
        return { success: true as const };
      },
      {
        coreAuth: true,
        params: t.Object({ ...SlugParams.properties, id: t.String({ maxLength: 100, description: "The blackout's id" }) }),
        response: { 200: t.Object({ success: t.Literal(true) }), ...errors(401, 404) },
        detail: { tags: ["Fleet"], summary: "Remove a blackout: the vehicle is offered again at that time", security },
      },
    )
    .get(
      "/:slug/schedule",
      async ({ params, caller, query }) => ({ success: true as const, data: await vehicleSchedule(deps, caller, params.slug, query) }),
      {
        coreAuth: true,
        params: SlugParams,
        query: t.Object({
          from: t.Optional(t.String({ maxLength: 100, description: "Required. Window start, UTC ISO 8601 instant", examples: ["2030-05-01T00:00:00Z"] })),
          to: t.Optional(
            t.String({ maxLength: 100, description: "Required. Window end, after from, at most 62 days later", examples: ["2030-05-08T00:00:00Z"] }),
          ),
        }),
        response: {
          200: t.Object({
            success: t.Literal(true),
            data: t.Object({ slug: t.String(), from: t.String(), to: t.String(), holds: t.Array(Hold) }),
          }),
          ...errors(400, 401, 404),
        },
        detail: {
          tags: ["Fleet"],
          summary: "A vehicle's schedule: the live bookings and blackouts holding it in a window",
          description:
            "A booking made from a quote option (a converted QUOTE or a booked network quote option) holds its vehicle " +
            "from the pickup time to the trip's estimated end (distance at 50 km/h × 1.3, at least 1 h, or the booked " +
            "duration) plus your turnaroundMinutes, while the booking is live (not CANCEL, REJECT, FAILED, NO_SHOW or " +
            "CLOSE). Holds overlapping [from, to) are listed, earliest first; 400 names each bad parameter.",
          security,
        },
      },
    );
}
