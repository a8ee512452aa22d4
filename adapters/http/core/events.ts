import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth";
import { companyOfRequest } from "../request-context";
import { UnauthorizedError } from "../../../domain/errors";
import { documentedResponses, errors } from "../schemas";
import { POSITION_EVENT, type EventStreams } from "../../../domain/events/live-events";

/** A stream cut for a slow reader: its connection is dropped after this long without progress. */
const CUT_IDLE_SECONDS = 2;

/** What a stream sends, as the OpenAPI document shows it. */
const STREAM_EXAMPLE = [
  "retry: 2000",
  ": connected",
  "",
  "id: hT3u0Wc9kLq2ZsV8xN1aPg",
  "event: booking.status_changed",
  'data: {"eventId":"5b0c…","type":"booking.status_changed","createdAt":1796210000,' +
    '"data":{"transactionId":"0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20","lastStatus":"EN_ROUTE","…":"the booking, as GET /api/reservation shows it"}}',
  "",
  "id: Rb7yM4eJx0QfK6nD2tUcAw",
  `event: ${POSITION_EVENT}`,
  'data: {"eventId":"9e41…","type":"chauffeur.position","createdAt":1796210004,' +
    '"data":{"transactionId":"0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20",' +
    '"location":{"lat":42.3656,"lon":-71.0096,"timestamp":"2026-12-11T21:10:00Z"},"chfName":"Sam Lee"}}',
  "",
  ": heartbeat",
  "",
].join("\n");

const DESCRIPTION = [
  "Server-Sent Events (`text/event-stream`): your company's booking events, as they happen, and the chauffeur " +
    "positions of your bookings under way — for your bookings as requester and as provider.",
  "",
  "- **Credential**: `Authorization: Bearer <JWT>`, the header `token` (platform token), or — for browsers' " +
    "EventSource, which cannot set headers — the query parameter `access_token` (either kind; never logged).",
  "- **Event ids** are opaque strings (22 characters), unique within your company's stream: they tell nothing of " +
    "other companies' activity and cannot be compared or used by another company. Keep the last one for resume.",
  "- **Events**: each has an `id`, an `event` (its type) and a JSON `data` line. Booking events are the webhook's: " +
    "the types `booking.created`, `quote.created`, `booking.updated`, `booking.cancelled`, `booking.status_changed`, " +
    "`booking.details_changed`, `booking.provider_reference`, `booking.delivery_failed`, `booking.delivery_retried`, " +
    "each with the webhook's body `{eventId, type, createdAt, data: <booking>}` (the booking as `GET " +
    "/api/reservation/{transactionId}` shows it to you). `chauffeur.position` carries `{eventId, type, createdAt, " +
    "data:{transactionId, location:{lat, lon, timestamp}, chfId?, chfName?}}`, kept (and resumable) for companies " +
    "with a stream open now or in the last 25 hours. A requester receives no position once the trip is complete or " +
    "ended.",
  "- **Resume**: reconnect with the header `Last-Event-ID` (EventSource sends it by itself; or the query parameter " +
    "`lastEventId`): the stream goes on right after that event, nothing lost, for at least 24 hours. When it cannot " +
    "(an unknown or too old id), the first event is `event: reset` with `data: {type, reason: UNKNOWN_EVENT_ID | " +
    "EVENT_ID_EXPIRED, lastEventId}` and the stream goes on from now: reload what you show. Without an id the stream " +
    "starts from now.",
  "- **Heartbeat**: a comment line (`: heartbeat`) every 15 s while nothing else is sent.",
  "- **Limits**: at most 10 open streams per company, across instances. Opening another with a valid credential " +
    "ends the company's oldest stream (it gets `event: revoked` with reason `STREAM_LIMIT`): a company is never " +
    "locked out of its own feed. A reader that falls behind (about 1,000 events or 1 MiB waiting) is disconnected; " +
    "reconnect with Last-Event-ID to go on.",
  "- **Revoked**: the credential is checked again every 2 seconds while the stream is open. When the token is " +
    "released (`POST /api/token/release`, `releaseToken`), expires, or its user is removed, the stream ends within " +
    "5 seconds, on whichever instance holds it: its last event is `event: revoked` with `data: {type: \"revoked\", " +
    "reason: TOKEN_REVOKED | STREAM_LIMIT}` (no `id`), then the connection closes. Do not reconnect with the same " +
    "credential after `TOKEN_REVOKED`: sign in again.",
  "- Works across instances: an event made on any instance reaches streams held by every other within a second.",
].join("\n");

/** `GET /api/events`: the caller's company's live events as Server-Sent Events. */
export function coreEvents(hub: EventStreams, auth: Authenticator) {
  return new Elysia({ name: "core-events" }).get(
    "/api/events",
    async ({ request, query, server }) => {
      const authorization = request.headers.get("authorization");
      const header = request.headers.get("token");
      // The query credential only when no header carries one (a header is never overridden by a URL).
      const credential = authorization ?? (query.access_token && !header ? `Bearer ${query.access_token}` : null);
      if (!credential?.trim() && !header?.trim())
        throw new UnauthorizedError(
          "Missing credentials: send Authorization: Bearer <JWT>, or the header token: <platform token>, or (EventSource, " +
            "which cannot set headers) the query parameter ?access_token=<either token>",
          "MISSING_TOKEN",
        );
      const caller = await auth.any(credential, header);
      companyOfRequest.set(request, caller.netid);
      const body = await hub.open(caller.netid, request.headers.get("last-event-id") ?? query.lastEventId, {
        // A reader cut for falling behind may never read what its connection holds: the idle timeout drops it.
        onCut: () => server?.timeout(request, CUT_IDLE_SECONDS),
        // The credential is asked again while the stream is open: released, expired or its user removed ends it.
        recheck: async () => {
          try {
            const still = await auth.any(credential, header);
            return still.netid.toLowerCase() === caller.netid.toLowerCase() ? undefined : "TOKEN_REVOKED";
          } catch (error) {
            if (error instanceof UnauthorizedError) return "TOKEN_REVOKED";
            throw error;
          }
        },
      });
      // Heartbeats keep the stream busy; the server's idle timeout would cut a quiet one otherwise.
      server?.timeout(request, 0);
      return new Response(body, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-store, no-transform",
          "x-accel-buffering": "no",
        },
      });
    },
    {
      query: t.Object({
        access_token: t.Optional(
          t.String({ minLength: 1, maxLength: 4096, description: "A core JWT or platform token, for clients that cannot set headers (EventSource)" }),
        ),
        lastEventId: t.Optional(
          t.String({ maxLength: 64, description: "Resume after this event id (the header Last-Event-ID wins)", examples: ["hT3u0Wc9kLq2ZsV8xN1aPg"] }),
        ),
      }),
      detail: {
        tags: ["Events"],
        summary: "Stream your company's booking events and chauffeur positions (Server-Sent Events)",
        description: DESCRIPTION,
        parameters: [
          {
            name: "Last-Event-ID",
            in: "header",
            required: false,
            schema: { type: "string", maxLength: 64 },
            description: "The id of the last event received: resume right after it",
          },
        ],
        responses: {
          200: {
            description: "The event stream (stays open)",
            content: {
              "text/event-stream": {
                schema: { type: "string", description: "Server-Sent Events: `id`, `event` and `data` lines, blank-line separated" },
                example: STREAM_EXAMPLE,
              },
            },
          },
          ...documentedResponses(errors(400, 401)),
        },
        security: [{ bearer: [] }, { platformToken: [] }, { accessToken: [] }],
      },
    },
  );
}
