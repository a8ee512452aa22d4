import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
// Embedded with the code (also inside the compiled binary), so the docs UI needs no network.
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };

const ASSETS = "/docs/assets";

/** OpenAPI 3 at /docs/json and a Swagger UI at /docs whose assets are served locally. */
export function docs() {
  return new Elysia({ name: "tripswitch-docs" })
    .get(`${ASSETS}/swagger-ui-bundle.js`, () => new Response(Bun.file(swaggerBundle), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .get(`${ASSETS}/swagger-ui.css`, () => new Response(Bun.file(swaggerCss), { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      openapi({
        path: "/docs",
        specPath: "/docs/json",
        provider: "swagger-ui",
        swagger: { cdn: `${ASSETS}/swagger-ui-bundle.js`, theme: `${ASSETS}/swagger-ui.css`, autoDarkMode: false },
        documentation: {
          info: {
            title: "TripSwitch API",
            version: "1.0.0",
            description:
              "Trip exchange for chauffeured ground transportation. Core API under /api (bearer JWT from POST /api/token); platform API under /Platform.svc (header `token` from getToken2; the /V1 path segment is accepted, not required). Every error is `{success:false, message, code}` (+ `errors[]` on validation); every response carries X-Request-Id. Codes every route may answer: 429 RATE_LIMITED (Retry-After); 503 DATABASE_BUSY or STORAGE_FULL (Retry-After: the change was not made, send it again later); 409 IDEMPOTENCY_IN_PROGRESS (a request with the same Idempotency-Key is still running). A booking keeps at most 200 changeLogs and 100 transactionErrors entries: past that the oldest are dropped and the first entry (changeSource or errCode `TRIMMED`) says how many.",
          },
          tags: [
            { name: "Accounts", description: "Company registration, core tokens, and the account check" },
            { name: "Platform", description: "Platform tokens" },
            { name: "Fleet", description: "Your fleet entries, and the cross-operator fleet search" },
            { name: "Trips", description: "sendTrip, quotes, the status lifecycle and booking lookup" },
            {
              name: "Integration",
              description:
                "Your delivery endpoint (bookings for you are POSTed there, retried with backoff) and webhooks (your bookings' new state, signed with HMAC-SHA256 over `<t>.<body>` in the X-TripSwitch-Signature header `t=<unix>,v1=<hex>`)",
            },
            {
              name: "Partnerships",
              description:
                "Partnerships between companies (request, accept, end), who may send you trips (integration `acceptTripsFrom`), and how each partner's vehicle types read in your fleet",
            },
            { name: "Health", description: "Liveness and readiness" },
          ],
          components: {
            securitySchemes: {
              bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
              platformToken: { type: "apiKey", in: "header", name: "token" },
            },
          },
        },
        // "/Platform.svc" contains a dot, which the plugin would otherwise take for a static file.
        exclude: { staticFile: false, paths: [`${ASSETS}/swagger-ui-bundle.js`, `${ASSETS}/swagger-ui.css`] },
      }),
    );
}
