import { RUN_EXAMPLES, WAIT_FOR_THE_CAR, exampleCar, keep, newResNo, tripBody } from "./postman-examples";
import { answers, jsonBody, orderForRuns, signOutLast, skipStreamsInRuns, testEveryRequest, useRunExamples, useTokens } from "./postman-run-order";

/**
 * The Postman collection of the API, generated from the OpenAPI document by Postman's own converter
 * (`openapi-to-postmanv2`), then given what Postman users need to run it at once: collection variables, the
 * credentials filled in from them, test scripts that capture the tokens and check every answer, and a "Core flow"
 * folder that registers an operator and a booking company, lists the operator's car, finds it, quotes and books it,
 * reads the booking, then cancels it and deletes the car (newman runs it in the suite). The whole collection runs
 * too, against any service (production included), and leaves nothing offered or booked behind.
 */

export const POSTMAN_PATH = "/docs/postman.json";
export const CORE_FLOW = "Core flow";

type Json = Record<string, any>;

interface PostmanItem {
  name: string;
  request?: Json;
  item?: PostmanItem[];
  event?: Json[];
  response?: unknown[];
  [key: string]: unknown;
}

/** A test or pre-request script. */
function script(listen: "test" | "prerequest", lines: string[]): Json {
  return { listen, script: { type: "text/javascript", exec: lines } };
}

const capture = (tokenVariable: string, name: string, value: string) => [
  `pm.test(${JSON.stringify(name)}, function () { pm.response.to.have.status(200); });`,
  keep(tokenVariable, value),
];
const CAPTURE_CORE_TOKEN = capture("coreToken", "a core token (JWT)", "pm.response.json().token");
const CAPTURE_PLATFORM_TOKEN = capture("platformToken", "a platform token", "pm.response.json()");
const LOGIN_BODY = '{\n  "uid": "{{uid}}",\n  "pw": "{{pw}}"\n}';
const PROVIDER_LOGIN_BODY = '{\n  "uid": "{{providerUid}}",\n  "pw": "{{pw}}"\n}';

function requests(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((i) => (i.item ? requests(i.item) : [i]));
}

const pathOf = (item: PostmanItem) => (item.request?.url?.path ?? []).join("/");

/** Optional headers the converter fills with placeholders (Idempotency-Key "string"…) are sent only when enabled. */
function disableOptionalHeaders(items: PostmanItem[]): void {
  for (const item of requests(items)) for (const header of item.request?.header ?? []) if (!/^(content-type|accept)$/i.test(header.key)) header.disabled = true;
}

/** `/metrics` takes the service's METRICS_TOKEN (the `metricsToken` variable), not a company's token. */
function useMetricsToken(items: PostmanItem[]): void {
  for (const item of requests(items))
    if (pathOf(item) === "metrics" && item.request?.auth?.type === "bearer") item.request.auth.bearer = [{ key: "token", value: "{{metricsToken}}", type: "string" }];
}

/** A copy of the converted request for `method path`, renamed, for the core flow. */
function step(all: PostmanItem[], method: string, path: string, name: string, change: (request: Json) => void, events: Json[]): PostmanItem {
  const found = all.find((i) => i.request?.method === method && pathOf(i) === path);
  if (!found) throw new Error(`the OpenAPI document has no ${method} /${path}`);
  const request = structuredClone(found.request!);
  request.name = name;
  request.header = (request.header ?? []).filter((h: Json) => !h.disabled);
  change(request);
  return { name, request, event: events, response: [] };
}

const status = (code: number) => `pm.test("status ${code}", function () { pm.response.to.have.status(${code}); });`;
const pathVariables = (values: Record<string, string>) => (r: Json) => {
  r.url.variable = Object.entries(values).map(([key, value]) => ({ key, value }));
};

function registration(netid: string, email: string, phone: string, coType: "IO" | "CO", name: string): string {
  return JSON.stringify(
    { name, netid: `{{${netid}}}`, mainEmail: `{{${email}}}`, password: "{{pw}}", confirmPassword: "{{pw}}", mainPhone: `{{${phone}}}`, coType },
    null,
    2,
  );
}

const NEW_COMPANIES = [
  "// Two new companies on every run: netids, e-mails and phones are unique; one password, random unless you set pw.",
  "var n = String(Date.now()).slice(-6) + String(Math.floor(Math.random() * 10));",
  keep("providerUid", '"POSTMAN-OP-" + n'),
  keep("providerEmail", '"postman-op-" + n + "@example.com"'),
  keep("providerPhone", '"+44 20 7946 " + n.slice(-4)'),
  keep("uid", '"POSTMAN-" + n'),
  keep("email", '"postman-" + n + "@example.com"'),
  keep("phone", '"+44 161 496 " + n.slice(-4)'),
  'if (!pm.variables.get("pw")) ' + keep("pw", 'require("crypto-js").lib.WordArray.random(24).toString()'),
];

function coreFlow(all: PostmanItem[]): PostmanItem {
  const login = (body: string) => (r: Json) => {
    r.body = jsonBody(body);
  };
  const asProvider = (r: Json) => useTokens(r, "provider");
  return {
    name: CORE_FLOW,
    description:
      "Run this folder first (or alone): it registers an operator and a booking company and keeps their tokens in " +
      "the collection variables (coreToken and platformToken for the booking company, providerCoreToken and " +
      "providerPlatformToken for the operator), which every other request uses. The operator lists a car, the " +
      "booking company finds it, quotes and books it; the folder ends by cancelling the booking and deleting the car.",
    item: [
      step(all, "POST", "api/company/register", "1. Register an operator", (r) => (r.body = jsonBody(registration("providerUid", "providerEmail", "providerPhone", "IO", "Postman operator {{providerUid}}"))), [
        script("prerequest", NEW_COMPANIES),
        script("test", [status(200), 'pm.test("registered", function () { pm.expect(pm.response.json().data.netid).to.eql(pm.variables.get("providerUid")); });']),
      ]),
      step(all, "POST", "api/company/register", "2. Register a booking company", (r) => (r.body = jsonBody(registration("uid", "email", "phone", "CO", "Postman bookings {{uid}}"))), [
        script("test", [status(200), 'pm.test("registered", function () { pm.expect(pm.response.json().data.netid).to.eql(pm.variables.get("uid")); });']),
      ]),
      step(all, "POST", "api/token", "3. Get a core token", login(LOGIN_BODY), [script("test", CAPTURE_CORE_TOKEN)]),
      step(all, "POST", "Platform.svc/getToken2", "4. Get a platform token", login(LOGIN_BODY), [script("test", CAPTURE_PLATFORM_TOKEN)]),
      step(all, "POST", "api/token", "5. The operator's core token", login(PROVIDER_LOGIN_BODY), [
        script("test", capture("providerCoreToken", "the operator's core token", "pm.response.json().token")),
      ]),
      step(all, "POST", "Platform.svc/getToken2", "6. The operator's platform token", login(PROVIDER_LOGIN_BODY), [
        script("test", capture("providerPlatformToken", "the operator's platform token", "pm.response.json()")),
      ]),
      step(
        all,
        "POST",
        "api/fleet",
        "7. The operator lists a car at JFK",
        (r) => {
          asProvider(r);
          r.body = jsonBody(exampleCar("Postman core flow SUV", "postman-core-suv", "the core flow"));
        },
        [script("test", [status(200), keep("coreVehicleSlug", "pm.response.json().data.slug")])],
      ),
      step(
        all,
        "GET",
        "api/search/fleet",
        "8. Search fleets around JFK: the operator's car is found",
        (r) => {
          r.url.query = [
            { key: "airports", value: "JFK" },
            { key: "q", value: "{{providerUid}}" },
            { key: "limit", value: "5" },
          ];
        },
        [
          script("prerequest", WAIT_FOR_THE_CAR),
          script("test", [
            status(200),
            'pm.test("the car is found", function () { pm.expect(pm.response.json().data.items.map(function (v) { return v.slug; })).to.include(pm.variables.get("coreVehicleSlug")); });',
          ]),
        ],
      ),
      step(
        all,
        "GET",
        "api/search/fleet",
        "8a. Search fleets around a city (Boston, US)",
        (r) => {
          r.url.query = [
            { key: "city", value: "Boston" },
            { key: "country", value: "US" },
            { key: "limit", value: "5" },
          ];
        },
        [script("test", [status(200), 'pm.test("an answer", function () { pm.expect(pm.response.json().data.items).to.be.an("array"); });'])],
      ),
      step(all, "POST", "Platform.svc/sendTrip/V1", "9. Ask the operator for a quote", (r) => (r.body = jsonBody(tripBody("QUOTE", "requesterResNo"))), [
        script("prerequest", newResNo("requesterResNo", "PM")),
        script("test", [
          status(200),
          "const quote = pm.response.json();",
          'pm.test("a quote offering the car", function () { pm.expect(quote.status).to.eql("QUOTE"); ' +
            'pm.expect(quote.fees.map(function (f) { return f.code; })).to.include(pm.variables.get("coreVehicleSlug")); });',
          keep("transactionId", "quote.transactionId"),
          keep("optionCode", "quote.fees[0].code"),
          keep("quotedAmount", "quote.fees[0].fee"),
        ]),
      ]),
      step(all, "POST", "Platform.svc/sendTrip/V1", "10. Book the first option", (r) => (r.body = jsonBody(tripBody("REGULAR", "requesterResNo", [{ code: "{{optionCode}}" }]))), [
        script("test", [
          status(200),
          "const booking = pm.response.json();",
          'pm.test("the quote became a booking at its price", function () {',
          '  pm.expect(booking.transactionId).to.eql(pm.variables.get("transactionId"));',
          '  pm.expect(booking.status).to.eql("BOOKING_REQUEST");',
          '  pm.expect(booking.totalAmount).to.eql(pm.variables.get("quotedAmount"));',
          "});",
        ]),
      ]),
      step(all, "GET", "api/reservation/:transactionId", "11. Read the booking", pathVariables({ transactionId: "{{transactionId}}" }), [
        script("test", [
          status(200),
          "const b = pm.response.json().data;",
          'pm.test("the booking, priced", function () { ' +
            'pm.expect(b.transactionId).to.eql(pm.variables.get("transactionId")); ' +
            "pm.expect(b.tripPacket.totalAmount).to.not.eql(null); });",
        ]),
      ]),
      step(all, "GET", "api/fx", "12. The FX table network quotes convert with", () => {}, [
        script("test", [
          status(200),
          "const fx = pm.response.json().data;",
          'pm.test("EUR-based rates of one day", function () { pm.expect(fx.base).to.eql("EUR"); ' +
            "pm.expect(fx.date).to.match(/^\\d{4}-\\d{2}-\\d{2}$/); pm.expect(fx.rates.USD).to.be.above(0); });",
        ]),
      ]),
      step(
        all,
        "POST",
        "Platform.svc/cancelTripByTransactionId/:transactionId/V1",
        "13. Cancel the booking (nothing stays booked)",
        pathVariables({ transactionId: "{{transactionId}}" }),
        [script("test", [status(200)])],
      ),
      step(
        all,
        "DELETE",
        "api/fleet/:slug",
        "14. The operator deletes its car (nothing stays offered)",
        (r) => {
          asProvider(r);
          pathVariables({ slug: "{{coreVehicleSlug}}" })(r);
        },
        [script("test", [status(200)])],
      ),
    ],
  };
}

/**
 * The converter is loaded when a collection is first made (its module graph costs ~0.2 s of CPU at every start, and
 * most processes never serve the collection); the literal specifier keeps it in the compiled binary.
 */
async function convert(openapi: unknown): Promise<Json> {
  const { convertV2 } = await import("openapi-to-postmanv2");
  return new Promise((resolve, reject) => {
    convertV2(
      { type: "json", data: openapi as never },
      { folderStrategy: "Tags", parametersResolution: "Example" },
      (error: { message: string } | null, result?: Json) => {
        if (error) return reject(new Error(error.message));
        if (!result?.result) return reject(new Error(`the OpenAPI document could not be converted: ${result?.reason}`));
        resolve(result.output[0].data);
      },
    );
  });
}

/** The collection for an OpenAPI document (without the host: see `withBaseUrl`). */
export async function postmanCollection(openapi: unknown): Promise<Json> {
  const collection = await convert(openapi);
  const items = collection.item as PostmanItem[];
  for (const item of requests(items)) if (item.request) useTokens(item.request);
  useMetricsToken(items);
  disableOptionalHeaders(items);
  // The core flow copies the converted requests before the whole run's values are given to them.
  const core = coreFlow(structuredClone(requests(items)));
  for (const item of requests(items)) {
    if (item.request?.method !== "POST") continue;
    if (pathOf(item) === "api/token") {
      item.request.body = jsonBody(LOGIN_BODY);
      item.event = [script("test", CAPTURE_CORE_TOKEN)];
    }
    if (pathOf(item) === "Platform.svc/getToken2") {
      item.request.body = jsonBody(LOGIN_BODY);
      item.event = [script("test", CAPTURE_PLATFORM_TOKEN)];
    }
  }
  const spare = spareTrip(requests(items));
  useRunExamples(items, RUN_EXAMPLES);
  const { kept, cleanUp } = orderForRuns(items, RUN_EXAMPLES);
  // The clean-up cancels a trip by its number: one more trip, made there, is the one it cancels.
  const before = cleanUp.findIndex((i) => i.request?.method === "POST" && /^Platform\.svc\/cancelTripByResNo\//.test(pathOf(i)));
  cleanUp.splice(before < 0 ? cleanUp.length : before, 0, spare);
  collection.item = signOutLast([core, ...kept], cleanUp);
  testEveryRequest(collection.item);
  skipStreamsInRuns(collection.item);
  collection.variable = [
    { key: "baseUrl", value: "http://localhost:3000", type: "string" },
    { key: "uid", value: "", type: "string", description: "The booking company's uid (or e-mail); the core flow registers a new one" },
    { key: "pw", value: "", type: "string", description: "The password of both companies; the core flow sets a random one when empty" },
    { key: "coreToken", value: "", type: "string", description: 'The booking company\'s bearer JWT, set by "Get a core token"' },
    { key: "platformToken", value: "", type: "string", description: 'The booking company\'s platform token (header token), set by "Get a platform token"' },
    { key: "providerUid", value: "", type: "string", description: "The operator's uid; the core flow registers a new one" },
    { key: "providerCoreToken", value: "", type: "string", description: "The operator's bearer JWT, set by the core flow" },
    { key: "providerPlatformToken", value: "", type: "string", description: "The operator's platform token, set by the core flow" },
    { key: "metricsToken", value: "", type: "string", description: "The service's METRICS_TOKEN, for GET /metrics (a company's token is refused)" },
    ...["email", "phone", "providerEmail", "providerPhone"].map((key) => ({ key, value: "", type: "string" })),
    ...RUN_VARIABLES.map((key) => ({ key, value: "", type: "string", description: "Set by the run" })),
    { key: "followEvents", value: "false", type: "string", description: '"true": the event stream request runs (it never ends)' },
  ];
  return collection;
}

/** What the requests keep for the ones after them. */
const RUN_VARIABLES = [
  "requesterResNo", "transactionId", "optionCode", "quotedAmount", "coreVehicleSlug", "vehicleSlug", "blackoutId", "tripId",
  "tripResNo", "providerResNo", "quoteId", "quoteOptionId", "bookedResNo", "spareResNo", "now", "dryPhone",
];

/** One more trip to the operator, for the clean-up to cancel by its reservation number. */
function spareTrip(all: PostmanItem[]): PostmanItem {
  return step(all, "POST", "Platform.svc/sendTrip/V1", "One more trip, to cancel by its number", (r) => (r.body = jsonBody(tripBody("REGULAR", "spareResNo"))), [
    script("prerequest", newResNo("spareResNo", "PM-SPARE")),
    script("test", [answers()]),
  ]);
}

/** The collection pointed at `baseUrl` (the origin it was asked from). */
export function withBaseUrl(collection: Json, baseUrl: string): Json {
  return { ...collection, variable: collection.variable.map((v: Json) => (v.key === "baseUrl" ? { ...v, value: baseUrl } : v)) };
}
