import { Elysia, t } from "elysia";
import { createHash, timingSafeEqual } from "node:crypto";
import { UnauthorizedError } from "../../domain/errors";
import { ErrorBody, errors } from "./schemas";

/** What the /metrics route needs: the exposition text. */
export interface MetricsRenderer {
  render(): Promise<{ text: string; contentType: string }>;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** `GET /metrics` in Prometheus text format; with a token configured, only `Authorization: Bearer <token>` reads it. */
export function metricsRoute(metrics: MetricsRenderer, token: string | undefined) {
  const expected = token ? digest(token) : undefined;
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async ({ request, set }) => {
      if (expected) {
        const given = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]?.trim() ?? "";
        // Compared as digests, in constant time, so the answer's timing says nothing about the token.
        if (!timingSafeEqual(digest(given), expected))
          throw new UnauthorizedError("A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)", "INVALID_METRICS_TOKEN");
      }
      const { text, contentType } = await metrics.render();
      set.headers["content-type"] = contentType;
      set.headers["cache-control"] = "no-store";
      return text;
    },
    {
      response: { 200: t.String({ description: "Prometheus text exposition format 0.0.4" }), ...errors(401) },
      detail: {
        tags: ["Health"],
        summary: "Prometheus metrics",
        description:
          "Request counts and latency histograms per route and status, outbox backlog and failed delivery " +
          "attempts, fleet index size and age, booking-writer queue depth, process memory. When the service runs " +
          "with METRICS_TOKEN, send `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise).",
        security: [{ bearer: [] }],
        responses: {
          200: {
            description: "Prometheus text",
            content: {
              "text/plain": {
                example:
                  '# HELP tripswitch_http_requests_total HTTP requests answered\n# TYPE ' +
                  'tripswitch_http_requests_total ' +
                  'counter\ntripswitch_http_requests_total{method="GET",route="/api/search/fleet",status="200"} ' +
                  '42\n',
              },
            },
          },
          401: { description: "METRICS_TOKEN is set and the bearer token is missing or wrong", content: { "application/json": { schema: ErrorBody } } },
        },
      },
    },
  );
}
