import { AIRPORT_STEPS, AIRPORT_TRIP, AIRPORT_VARIABLES } from "./postman-airport-trip";
import { CORE_STEPS, SPARE_TRIP } from "./postman-core-flow";
import { RUN_EXAMPLES, keep } from "./postman-examples";
import {
  copyOf,
  jsonBody,
  orderForRuns,
  signOutLast,
  skipStreamsInRuns,
  testEveryRequest,
  useRunExamples,
  useTokens,
} from "./postman-run-order";

/**
 * The Postman collection of the API, generated from the OpenAPI document by Postman's own converter
 * (`openapi-to-postmanv2`), then given what Postman users need to run it at once: collection variables, the
 * credentials filled in from them, test scripts that capture the tokens and check every answer, and a "Core flow"
 * folder that registers an operator and a booking company, lists the operator's car, finds, quotes and books it,
 * reads the booking, then cancels it and deletes the car (newman runs it in the suite); an "Airport trip" folder
 * (postman-airport-trip.ts) runs a flight, arrival, waiting and an early NO_SHOW. The whole collection runs
 * too, against any service (a production one included), and leaves nothing offered or booked behind.
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

function requests(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((i) => (i.item ? requests(i.item) : [i]));
}

const pathOf = (item: PostmanItem) => (item.request?.url?.path ?? []).join("/");

/** Optional headers the converter fills with placeholders (Idempotency-Key "string"…) are sent only when enabled. */
function disableOptionalHeaders(items: PostmanItem[]): void {
  for (const item of requests(items))
    for (const header of item.request?.header ?? []) {
      if (!/^(content-type|accept)$/i.test(header.key)) header.disabled = true;
    }
}

/** `/metrics` takes the service's METRICS_TOKEN (the `metricsToken` variable), not a company's token. */
function useMetricsToken(items: PostmanItem[]): void {
  for (const item of requests(items))
    if (pathOf(item) === "metrics" && item.request?.auth?.type === "bearer")
      item.request.auth.bearer = [{ key: "token", value: "{{metricsToken}}", type: "string" }];
}

/** Each sign-in request keeps its token: the variable, and where the answer has it. */
const CAPTURES: Record<string, [string, string]> = {
  "api/token": ["coreToken", "pm.response.json().token"],
  "Platform.svc/getToken2": ["platformToken", "pm.response.json()"],
};

/** The collection's own sign-ins (the token requests of a whole run) take the booking company's `uid` and `pw`. */
function signInAsTheBookingCompany(items: PostmanItem[]): void {
  for (const item of requests(items)) {
    const capture = CAPTURES[pathOf(item)];
    if (item.request?.method !== "POST" || !capture) continue;
    item.request.body = jsonBody({ uid: "{{uid}}", pw: "{{pw}}" });
    item.event = [{ listen: "test", script: { type: "text/javascript", exec: [keep(...capture)] } }];
  }
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
  // The core flow and the clean-up's extra trip copy the converted requests before the run's values are set.
  const pristine = structuredClone(items);
  const core: PostmanItem = {
    name: CORE_FLOW,
    description:
      "Run this folder first (or alone): it registers an operator and a booking company and keeps their tokens in " +
      "the collection variables (coreToken and platformToken for the booking company, providerCoreToken and " +
      "providerPlatformToken for the operator), which every other request uses. The operator lists a car, the " +
      "booking company finds it, quotes and books it; the folder ends by cancelling the booking and deleting the car.",
    item: CORE_STEPS.map((s) => copyOf(pristine, s.copies, s.name, s.example)),
  };
  const airport: PostmanItem = {
    name: AIRPORT_TRIP,
    description:
      "Runs after the other folders (it needs the operator's car and both companies' tokens): an airport booking " +
      "whose flight lands early, the chauffeur's ETA and arrival from its positions, a NO_SHOW refused as too early " +
      "(409 NO_SHOW_TOO_EARLY), and the WAITING lines once the passenger is on board; it ends CLOSE'd " +
      "(docs/flights.md).",
    item: AIRPORT_STEPS.map((s) => copyOf(pristine, s.copies, s.name, s.example)),
  };
  signInAsTheBookingCompany(items);
  useRunExamples(items, RUN_EXAMPLES);
  const { kept, cleanUp } = orderForRuns(items, RUN_EXAMPLES);
  // The clean-up cancels a trip by its number: one more trip, made there, is the one it cancels.
  const spare = copyOf(pristine, SPARE_TRIP.copies, SPARE_TRIP.name, SPARE_TRIP.example);
  const byNumber = cleanUp.findIndex((i) => i.request?.method === "POST" && pathOf(i).startsWith("Platform.svc/cancelTripByResNo"));
  cleanUp.splice(byNumber < 0 ? cleanUp.length : byNumber, 0, spare);
  collection.item = signOutLast([core, ...kept, airport], cleanUp);
  testEveryRequest(collection.item);
  skipStreamsInRuns(collection.item);
  collection.variable = VARIABLES.map(([key, description, value = ""]) => ({
    key,
    value,
    type: "string",
    ...(description ? { description } : {}),
  }));
  return collection;
}

/** The collection's variables: name, what it is, and its value when not empty. */
const VARIABLES: Array<[string, string, string?]> = [
  ["baseUrl", "", "http://localhost:3000"],
  ["uid", "The booking company's uid (or e-mail); the core flow registers a new one"],
  ["pw", "The password of both companies; the core flow sets a random one when empty"],
  ["coreToken", "The booking company's bearer JWT, set by the core flow (and by each sign-in of a whole run)"],
  ["platformToken", "The booking company's platform token (header token), set like coreToken"],
  ["providerUid", "The operator's uid; the core flow registers a new one"],
  ["providerCoreToken", "The operator's bearer JWT, set by the core flow"],
  ["providerPlatformToken", "The operator's platform token, set by the core flow"],
  ["metricsToken", "The service's METRICS_TOKEN, for GET /metrics (a company's token is refused)"],
  ...["email", "phone", "providerEmail", "providerPhone"].map((key): [string, string] => [key, ""]),
  ...[
    ...["requesterResNo", "transactionId", "optionCode", "quotedAmount", "coreVehicleSlug", "vehicleSlug"],
    ...["blackoutId", "tripId", "tripResNo", "providerResNo", "quoteId", "quoteOptionId", "bookedResNo"],
    ...["spareResNo", "now", "dryPhone", ...AIRPORT_VARIABLES],
  ].map((key): [string, string] => [key, "Set by the run"]),
  ["followEvents", '"true": the event stream request runs (it never ends)', "false"],
];

/** The collection pointed at `baseUrl` (the origin it was asked from). */
export function withBaseUrl(collection: Json, baseUrl: string): Json {
  const variable = collection.variable.map((v: Json) => (v.key === "baseUrl" ? { ...v, value: baseUrl } : v));
  return { ...collection, variable };
}
