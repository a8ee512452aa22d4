import { Elysia, t } from "elysia";
import { MAX_RELEASED, releaseRequests, type ReleaseDeps } from "../../../domain/usecases/release-requests";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";

const NetidParams = t.Object({
  netid: t.String({ maxLength: 64, description: "The requester's netid (any letter case)", examples: ["GLOBAL-TRAVEL"] }),
});

const Released = t.Object({
  requester: t.String({ description: "The requester, as you named it", examples: ["GLOBAL-TRAVEL"] }),
  released: t.Array(t.String({ format: "uuid" }), {
    description: "The transactionIds released: each is now REJECT with `reason: \"RELEASED\"`",
    examples: [["0190f5a2-8c1e-7d3a-9b4f-2e6c1a7d9e01"]],
  }),
  more: t.Boolean({ description: `true when the requester has more pending requests with you than one call releases (${MAX_RELEASED})` }),
});

/** A provider's own operations on its requesters' bookings (docs/availability.md#releasing-a-requesters-pending-requests). */
export function coreRequesters(deps: ReleaseDeps, auth: Authenticator) {
  return new Elysia({ name: "core-requesters", prefix: "/api" }).use(authMacros(auth)).post(
    "/requesters/:netid/release",
    async ({ caller, params }) => ({ success: true as const, data: await releaseRequests(deps, caller, params.netid) }),
    {
      anyAuth: true,
      params: NetidParams,
      response: { 200: t.Object({ success: t.Literal(true), data: Released }), ...errors(401) },
      detail: {
        tags: ["Trips"],
        summary: "Release a requester's pending requests to you",
        description:
          "You, as provider, end every booking this requester sent you that you have not accepted yet (BOOKING_REQUEST, " +
          `PENDING; at most ${MAX_RELEASED} a call, \`more\` says when others remain): each becomes REJECT with ` +
          '`reason: "RELEASED"`, the vehicle it held is free again at once, the requester hears it as any REJECT ' +
          "(webhook `booking.status_changed`, event stream), and nothing counts on your provider record (a released " +
          "booking is left out of it). Bookings you accepted are not touched. A netid that sent you nothing, or that no " +
          "company holds, releases nothing (the same answer). See docs/availability.md#releasing-a-requesters-pending-requests.",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
