import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
// Embedded with the code (also inside the compiled binary), so the docs UI needs no network.
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import faviconSvg from "./favicon.svg" with { type: "text" };
import { ERROR_CODES } from "./error-codes";
import { cleanOpenApi } from "./openapi-clean";
import { withEdgeAnswers } from "./openapi-edge";
import { webhookDocs } from "./webhook-docs";
import { POSTMAN_PATH, postmanCollection, withBaseUrl } from "./postman";
import { forwardedRequests } from "./request-context";

const ASSETS = "/docs/assets";
const SPEC_PATH = "/docs/json";
const UI_PATH = "/docs";

/** The docs page's policy: scripts, styles and requests from this origin only (Swagger UI sets inline styles and shows data: images); no framing. */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

// The page starts Swagger UI from a script file rather than an inline script, so the policy needs no 'unsafe-inline' for scripts.
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>TripSwitch API</title>
  <link rel="stylesheet" href="${ASSETS}/swagger-ui.css" />
  <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${ASSETS}/swagger-ui-bundle.js"></script>
  <script src="${ASSETS}/start.js"></script>
</body>
</html>
`;
const START = `window.ui = SwaggerUIBundle({ dom_id: "#swagger-ui", url: ${JSON.stringify(SPEC_PATH)} });\n`;
const pageHeaders = (type: string, caching: string) => ({
  "content-type": type,
  "content-security-policy": DOCS_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": caching,
});
const favicon = () =>
  new Response(faviconSvg, { headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" } });

/** The error-code catalogue as a table for the document's description. */
const errorCodeTable = ["| code | status | meaning |", "| --- | --- | --- |", ...ERROR_CODES.map((e) => `| \`${e.code}\` | ${e.status} | ${e.meaning} |`)].join(
  "\n",
);

/**
 * Added to the generated document (the plugin's options type has no room for them): what the service sends out,
 * the error-code catalogue, and the default credential: none. Every operation that wants one names it
 * (`bearer`, `platformToken` or either); public ones say `security: []` or nothing.
 */
const EXTRAS = {
  security: [],
  webhooks: webhookDocs,
  "x-error-codes": ERROR_CODES,
};

/** The app the docs are mounted on, asked for its own OpenAPI document. */
export type DocsRoot = () => { handle(request: Request): Response | Promise<Response> };

/**
 * OpenAPI 3.1 at /docs/json and a Swagger UI at /docs whose assets are served locally. The document also holds
 * what the service sends out (`webhooks`) and every stable error code (`x-error-codes`). With the app's root, a
 * Postman collection generated from that document at /docs/postman.json (converted on first request, then kept).
 */
export function docs(root?: DocsRoot) {
  // The plugin answers the same document object until the routes change; it is cleaned once per such object.
  const cleaned = new WeakMap<object, unknown>();
  let collection: Promise<Record<string, unknown>> | undefined;
  const postman = async (request: Request) => {
    if (!collection) {
      const specRequest = new Request(new URL(SPEC_PATH, request.url));
      forwardedRequests.add(specRequest);
      collection = Promise.resolve(root!().handle(specRequest))
        .then((response) => response.json())
        .then(postmanCollection);
      collection.catch(() => (collection = undefined));
    }
    const body = withBaseUrl(await collection, new URL(request.url).origin);
    return new Response(JSON.stringify(body), {
      headers: { "content-type": "application/json", "content-disposition": 'inline; filename="tripswitch.postman_collection.json"' },
    });
  };
  return (
    new Elysia({ name: "tripswitch-docs" })
      .onAfterHandle(({ path, response }) => {
        if (path !== SPEC_PATH || response === null || typeof response !== "object" || response instanceof Response) return;
        let document = cleaned.get(response);
        if (!document) cleaned.set(response, (document = cleanOpenApi(withEdgeAnswers({ ...response, ...EXTRAS }))));
        return document;
      })
      // The service's icon, for /docs, /console and browsers that ask for /favicon.ico.
      .get("/favicon.svg", favicon, { detail: { hide: true } })
      .get("/favicon.ico", favicon, { detail: { hide: true } })
      .get(POSTMAN_PATH, ({ request }) => (root ? postman(request) : new Response(null, { status: 404 })), { detail: { hide: true } })
      .get(UI_PATH, () => new Response(PAGE, { headers: pageHeaders("text/html; charset=utf-8", "no-cache") }), { detail: { hide: true } })
      .get(`${ASSETS}/start.js`, () => new Response(START, { headers: pageHeaders("text/javascript; charset=utf-8", "no-cache") }), { detail: { hide: true } })
      .get(
        `${ASSETS}/swagger-ui-bundle.js`,
        () => new Response(Bun.file(swaggerBundle), { headers: pageHeaders("text/javascript; charset=utf-8", "public, max-age=86400") }),
        {
          detail: { hide: true },
        },
      )
      .get(`${ASSETS}/swagger-ui.css`, () => new Response(Bun.file(swaggerCss), { headers: pageHeaders("text/css; charset=utf-8", "public, max-age=86400") }), {
        detail: { hide: true },
      })
      .use(
        openapi({
          path: "/docs",
          specPath: SPEC_PATH,
          // The UI page is served above (with its security headers); the plugin serves the document only.
          provider: null,
          documentation: {
            info: {
              title: "TripSwitch API",
              version: "1.0.0",
              description:
                "Trip exchange for chauffeured ground transportation. Core API under /api (bearer JWT from POST " +
                "/api/token); platform API under /Platform.svc (header `token` from getToken2; the /V1 path segment " +
                "is accepted, not required). Every error is `{success:false, message, code}` (+ `errors[]` on " +
                "validation); every response carries X-Request-Id; API answers (core, platform, health) also carry " +
                "`Cache-Control: no-store` and `X-Content-Type-Options: nosniff`. Codes every route may answer: 429 " +
                "RATE_LIMITED (Retry-After); 503 DATABASE_BUSY or STORAGE_FULL (Retry-After: the change was not " +
                "made, send it again later); 409 IDEMPOTENCY_IN_PROGRESS (a request with the same Idempotency-Key is " +
                "still running). A booking keeps at most 200 changeLogs and 100 transactionErrors entries: past that " +
                "the oldest are dropped and the first entry (changeSource or errCode `TRIMMED`) says how many. What " +
                "the service POSTs to your endpoints (trips for you, booking events) is under `webhooks`.\n\n## " +
                "Error codes\n\nEvery stable `code` of the error envelope (also listed, as data, under " +
                "`x-error-codes`):\n\n" +
                errorCodeTable,
            },
            servers: [{ url: "/", description: "The host that serves this document" }],
            tags: [
              { name: "Accounts", description: "Company registration, core tokens, and the account check" },
              { name: "Platform", description: "Platform tokens" },
              { name: "Fleet", description: "Your fleet entries, and the cross-operator fleet search" },
              { name: "Trips", description: "sendTrip, quotes, the status lifecycle and booking lookup" },
              {
                name: "Quotes",
                description:
                  "Network quotes: one trip priced across every provider that would take it from you and serves its " +
                  "pickup, in one currency, stored 24 h for your company only; booking an option makes an ordinary " +
                  "booking with that provider at the quoted price",
              },
              {
                name: "Rates",
                description:
                  "Your rate card: routes between zones, distance and hourly rates, surcharges, extras and a minimum fare; " +
                  "every quote option's `breakdown` shows how its fee is made up (docs/rates.md)",
              },
              {
                name: "Integration",
                description:
                  "Your delivery endpoint (bookings for you are POSTed there, retried with backoff) and webhooks " +
                  "(your bookings' new state, signed with HMAC-SHA256 in the X-TripSwitch-Signature header " +
                  "`t=<unix>,v1=<hex of <t>.<body>>,v2=<hex of <t>.<event id>.<body>>`)",
              },
              {
                name: "Partnerships",
                description:
                  "Partnerships between companies (request, accept, end), who may send you trips (integration " +
                  "`acceptTripsFrom`), and how each partner's vehicle types read in your fleet",
              },
              {
                name: "Events",
                description: "Your company's booking events and chauffeur positions as they happen (Server-Sent Events), " + "resumable with Last-Event-ID",
              },
              {
                name: "Statements",
                description:
                  "What you and each counterparty owe each other for a month: fares, cancellation fees and cost recoveries, " +
                  "per currency, as JSON or CSV; disputes of a line and their answers (docs/settlement.md)",
              },
              { name: "Health", description: "Liveness and readiness" },
            ],
            components: {
              securitySchemes: {
                bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
                platformToken: { type: "apiKey", in: "header", name: "token" },
                accessToken: {
                  type: "apiKey",
                  in: "query",
                  name: "access_token",
                  description: "GET /api/events only: a core JWT or platform token in the URL, for EventSource clients that " + "cannot set headers",
                },
              },
            },
          },
          // "/Platform.svc" contains a dot, which the plugin would otherwise take for a static file.
          exclude: {
            staticFile: false,
            paths: [UI_PATH, `${ASSETS}/start.js`, `${ASSETS}/swagger-ui-bundle.js`, `${ASSETS}/swagger-ui.css`, POSTMAN_PATH, "/favicon.svg", "/favicon.ico"],
          },
        }),
      )
  );
}
