import { signOutLast, skipStreamsInRuns, testEveryRequest } from "./postman-run-order";

/**
 * The Postman collection of the API, generated from the OpenAPI document by Postman's own converter
 * (`openapi-to-postmanv2`), then given what Postman users need to run it at once: collection variables, both
 * credentials filled in from them, test scripts that capture both tokens, and a "Core flow" folder that registers a
 * company, takes both tokens, searches, sends a quote, books it and reads the booking (newman runs it in the suite).
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

const CAPTURE_CORE_TOKEN = [
  'pm.test("a core token (JWT)", function () { pm.response.to.have.status(200); });',
  'pm.collectionVariables.set("coreToken", pm.response.json().token);',
];
const CAPTURE_PLATFORM_TOKEN = [
  'pm.test("a platform token", function () { pm.response.to.have.status(200); });',
  'pm.collectionVariables.set("platformToken", pm.response.json());',
];
const LOGIN_BODY = '{\n  "uid": "{{uid}}",\n  "pw": "{{pw}}"\n}';

/** The trip of the core flow: from the registered company to `{{providerId}}`, from JFK into Manhattan. */
function tripBody(reservationType: "QUOTE" | "REGULAR"): string {
  const trip: Json = {
    reservationType,
    runType: "Airport",
    passengerCount: "2",
    luggageCount: "2",
    passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    locations: {
      pickup: { locationType: "airport", address: "JFK", time: "2027-01-15T08:00:00" },
      dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" },
    },
    affiliateReservation: { requesterId: "{{uid}}", requesterResNo: "{{requesterResNo}}", providerId: "{{providerId}}", action: "NEW" },
  };
  if (reservationType === "REGULAR") trip.fees = [{ code: "{{optionCode}}" }];
  return JSON.stringify(trip, null, 2);
}

const jsonBody = (raw: string) => ({ mode: "raw", raw, options: { raw: { language: "json" } } });

function requests(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((i) => (i.item ? requests(i.item) : [i]));
}

const pathOf = (item: PostmanItem) => (item.request?.url?.path ?? []).join("/");

/** Optional headers the converter fills with placeholders (Idempotency-Key "string"…) are sent only when enabled. */
function disableOptionalHeaders(items: PostmanItem[]): void {
  for (const item of requests(items)) for (const header of item.request?.header ?? []) if (!/^(content-type|accept)$/i.test(header.key)) header.disabled = true;
}

/** Every request's credential from the collection variables: `coreToken` (bearer) or `platformToken` (header token). */
function useTokenVariables(items: PostmanItem[]): void {
  for (const item of requests(items)) {
    const auth = item.request?.auth;
    if (auth?.type === "bearer") auth.bearer = [{ key: "token", value: "{{coreToken}}", type: "string" }];
    if (auth?.type === "apikey")
      auth.apikey = [
        { key: "key", value: "token", type: "string" },
        { key: "value", value: "{{platformToken}}", type: "string" },
        { key: "in", value: "header", type: "string" },
      ];
  }
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

function coreFlow(all: PostmanItem[]): PostmanItem {
  const status = (code: number) => `pm.test("status ${code}", function () { pm.response.to.have.status(${code}); });`;
  return {
    name: CORE_FLOW,
    description:
      "Run this folder first (or alone): it registers a new company and keeps its tokens in the collection " +
      "variables coreToken and platformToken, which every other request uses.",
    item: [
      step(
        all,
        "POST",
        "api/company/register",
        "1. Register a company",
        (r) =>
          (r.body = jsonBody(
            '{\n  "name": "Postman {{uid}}",\n  "netid": "{{uid}}",\n  "mainEmail": "{{email}}",\n  "password": ' +
            '"{{pw}}",\n  "confirmPassword": "{{pw}}",\n  "mainPhone": "{{phone}}",\n  "coType": "CO"\n}',
          )),
        [
          script("prerequest", [
            "// A new company on every run: uid (= netid), e-mail and phone are unique.",
            "const n = String(Date.now()).slice(-6) + String(Math.floor(Math.random() * 10));",
            'pm.collectionVariables.set("uid", "POSTMAN-" + n);',
            'pm.collectionVariables.set("email", "postman-" + n + "@example.com");',
            'pm.collectionVariables.set("phone", "+44 20 7946 " + n.slice(-4));',
            'if (!pm.collectionVariables.get("pw")) pm.collectionVariables.set("pw", "a long unguessable postman passphrase");',
          ]),
          script("test", [
            status(200),
            'pm.test("registered", function () { pm.expect(pm.response.json().data.netid).to.eql(pm.collectionVariables.get("uid")); });',
          ]),
        ],
      ),
      step(all, "POST", "api/token", "2. Get a core token", (r) => (r.body = jsonBody(LOGIN_BODY)), [script("test", CAPTURE_CORE_TOKEN)]),
      step(all, "POST", "Platform.svc/getToken2", "3. Get a platform token", (r) => (r.body = jsonBody(LOGIN_BODY)), [script("test", CAPTURE_PLATFORM_TOKEN)]),
      step(
        all,
        "GET",
        "api/search/fleet",
        "4. Search fleets around JFK",
        (r) => {
          r.url.query = [
            { key: "airports", value: "JFK" },
            { key: "limit", value: "5" },
          ];
        },
        [script("test", [status(200), 'pm.test("vehicles found", function () { pm.expect(pm.response.json().data.items).to.be.an("array"); });'])],
      ),
      step(
        all,
        "GET",
        "api/search/fleet",
        "4a. Search fleets around a city (Boston, US)",
        (r) => {
          r.url.query = [
            { key: "city", value: "Boston" },
            { key: "country", value: "US" },
            { key: "limit", value: "5" },
          ];
        },
        [script("test", [status(200), 'pm.test("vehicles found", function () { pm.expect(pm.response.json().data.items).to.be.an("array"); });'])],
      ),
      step(all, "POST", "Platform.svc/sendTrip/V1", "5. Send a quote request", (r) => (r.body = jsonBody(tripBody("QUOTE"))), [
        script("prerequest", ['pm.collectionVariables.set("requesterResNo", "PM-" + Date.now());']),
        script("test", [
          status(200),
          "const quote = pm.response.json();",
          'pm.test("a quote with options", function () { pm.expect(quote.status).to.eql("QUOTE"); pm.expect(quote.fees.length).to.be.above(0); });',
          'pm.collectionVariables.set("transactionId", quote.transactionId);',
          'pm.collectionVariables.set("optionCode", quote.fees[0].code);',
          'pm.collectionVariables.set("quotedAmount", quote.fees[0].fee);',
        ]),
      ]),
      step(all, "POST", "Platform.svc/sendTrip/V1", "6. Book the first option", (r) => (r.body = jsonBody(tripBody("REGULAR"))), [
        script("test", [
          status(200),
          "const booking = pm.response.json();",
          'pm.test("the quote became a booking at its price", function () {',
          '  pm.expect(booking.transactionId).to.eql(pm.collectionVariables.get("transactionId"));',
          '  pm.expect(booking.status).to.eql("BOOKING_REQUEST");',
          '  pm.expect(booking.totalAmount).to.eql(pm.collectionVariables.get("quotedAmount"));',
          "});",
        ]),
      ]),
      step(
        all,
        "GET",
        "api/reservation/:transactionId",
        "7. Read the booking",
        (r) => {
          r.url.variable = [{ key: "transactionId", value: "{{transactionId}}" }];
        },
        [
          script("test", [
            status(200),
            "const b = pm.response.json().data;",
            'pm.test("the booking, priced", function () { ' +
            'pm.expect(b.transactionId).to.eql(pm.collectionVariables.get("transactionId")); ' +
            'pm.expect(b.tripPacket.totalAmount).to.not.eql(null); });',
          ]),
        ],
      ),
      step(all, "GET", "api/fx", "8. The FX table network quotes convert with", () => {}, [
        script("test", [
          status(200),
          "const fx = pm.response.json().data;",
          'pm.test("EUR-based rates of one day", function () { pm.expect(fx.base).to.eql("EUR"); ' +
          'pm.expect(fx.date).to.match(/^\\d{4}-\\d{2}-\\d{2}$/); pm.expect(fx.rates.USD).to.be.above(0); });',
        ]),
      ]),
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
  useTokenVariables(items);
  disableOptionalHeaders(items);
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
  collection.item = signOutLast([coreFlow(requests(items)), ...items]);
  testEveryRequest(collection.item);
  skipStreamsInRuns(collection.item);
  collection.variable = [
    { key: "baseUrl", value: "http://localhost:3000", type: "string" },
    { key: "uid", value: "DEMO-PLATFORM", type: "string", description: "Your uid (or e-mail); the core flow sets a new one" },
    { key: "pw", value: "tripswitch-demo-2026", type: "string", description: "Your password" },
    { key: "coreToken", value: "", type: "string", description: 'Bearer JWT, set by "Get a core access token"' },
    { key: "platformToken", value: "", type: "string", description: 'Platform token (header token), set by "Get a platform token"' },
    { key: "providerId", value: "ACME-LIMO", type: "string", description: "The operator the core flow asks for a quote" },
    { key: "email", value: "", type: "string" },
    { key: "phone", value: "", type: "string" },
    { key: "requesterResNo", value: "", type: "string" },
    { key: "transactionId", value: "", type: "string" },
    { key: "optionCode", value: "", type: "string" },
    { key: "quotedAmount", value: "", type: "string" },
    { key: "followEvents", value: "false", type: "string", description: '"true": the event stream request runs (it never ends)' },
  ];
  return collection;
}

/** The collection pointed at `baseUrl` (the origin it was asked from). */
export function withBaseUrl(collection: Json, baseUrl: string): Json {
  return { ...collection, variable: collection.variable.map((v: Json) => (v.key === "baseUrl" ? { ...v, value: baseUrl } : v)) };
}
