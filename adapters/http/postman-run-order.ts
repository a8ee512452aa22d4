import type { RunExample } from "./postman-examples";

/**
 * What makes the served Postman collection pass when run as a whole (newman, Postman's runner), and fail when an
 * answer is not the one expected: every request sends the run's own values (postman-examples.ts) and checks its
 * status (2xx, or the error it shows on purpose); the requests that make what others use run first, those that end
 * it last, and the clean-up (cancelling the run's bookings, deleting its car) and the sign-outs run at the very end,
 * in a folder of their own, so that no request after them finds its booking cancelled or its token released.
 */
type Json = Record<string, any>;
interface Item {
  name: string;
  request?: Json;
  item?: Item[];
  event?: Json[];
  [key: string]: unknown;
}

export const SIGN_OUT_FOLDER = "Clean up and sign out (runs last)";
/** Requests that release the collection's own credentials. */
const SIGNS_OUT = [/^api\/token\/release$/, /^Platform\.svc\/releaseToken(\/|$)/i];
const pathOf = (item: Item) => (item.request?.url?.path ?? []).join("/");
const keyOf = (item: Item) => `${item.request?.method} ${pathOf(item)}`;
const flat = (list: Item[]): Item[] => list.flatMap((i) => (i.item ? flat(i.item) : [i]));

/** A raw JSON body (a string is sent as written). */
export const jsonBody = (value: unknown) => ({
  mode: "raw",
  raw: typeof value === "string" ? value : JSON.stringify(value, null, 2),
  options: { raw: { language: "json" } },
});

/**
 * A request's credential from the collection variables: the booking company's `coreToken` (bearer) or
 * `platformToken` (header token), or the operator's `providerCoreToken` / `providerPlatformToken`.
 */
export function useTokens(request: Json, who: "requester" | "provider" = "requester"): void {
  const auth = request.auth;
  const core = who === "provider" ? "providerCoreToken" : "coreToken";
  const platform = who === "provider" ? "providerPlatformToken" : "platformToken";
  if (auth?.type === "bearer") auth.bearer = [{ key: "token", value: `{{${core}}}`, type: "string" }];
  if (auth?.type === "apikey")
    auth.apikey = [
      { key: "key", value: "token", type: "string" },
      { key: "value", value: `{{${platform}}}`, type: "string" },
      { key: "in", value: "header", type: "string" },
    ];
}

/** The test line checking a request's answer: any 2xx, or the error it shows on purpose. */
export function answers(error?: RunExample["error"]): string {
  // The answer's start goes into the message, so a failed run says why.
  const code = "pm.expect(pm.response.code, pm.response.text().slice(0, 400))";
  if (!error) return `pm.test("answers 2xx", function () { ${code}.to.be.within(200, 299); });`;
  return (
    `pm.test(${JSON.stringify(`answers ${error.status} ${error.code}, on purpose: ${error.why}`)}, function () { ` +
    `${code}.to.eql(${error.status}); pm.expect(pm.response.json().code).to.eql(${JSON.stringify(error.code)}); });`
  );
}

const script = (listen: "test" | "prerequest", exec: string[]) => ({
  listen,
  script: { type: "text/javascript", exec },
});

/** Gives a request its example: credentials, path variables, query, body, scripts and the answer it expects. */
export function applyExample(item: Item, example: RunExample): void {
  const request = item.request!;
  if (example.as) useTokens(request, example.as);
  if (example.path) {
    const variables: Json[] = request.url.variable ?? [];
    const missing = Object.keys(example.path).filter((k) => !variables.some((v) => v.key === k));
    if (missing.length) throw new Error(`${keyOf(item)} has no path variable ${missing.join(", ")}`);
    request.url.variable = variables.map((v) => (v.key in example.path! ? { ...v, value: example.path![v.key] } : v));
  }
  if (example.query) request.url.query = Object.entries(example.query).map(([key, value]) => ({ key, value }));
  if (example.body !== undefined) request.body = jsonBody(example.body);
  const events = (item.event ??= []);
  if (example.prerequest) events.push(script("prerequest", example.prerequest));
  const test = events.find((e) => e.listen === "test");
  const lines = [answers(example.error), ...(example.test ?? [])];
  if (test) test.script.exec.unshift(...lines);
  else events.push(script("test", lines));
}

/** A copy of the converted request `METHOD path` under another name, with its own example (enabled headers only). */
export function copyOf(items: Item[], copies: string, name: string, example: RunExample): Item {
  const found = flat(items).find((i) => keyOf(i) === copies);
  if (!found) throw new Error(`the OpenAPI document has no ${copies}`);
  const request: Json = { ...structuredClone(found.request!), name };
  request.header = (request.header ?? []).filter((h: Json) => !h.disabled);
  const item: Item = { name, request, event: [], response: [] };
  applyExample(item, example);
  return item;
}

/**
 * Gives every converted request its run example (a request without one expects 2xx). An example naming no request
 * of the collection is an error.
 */
export function useRunExamples(items: Item[], examples: Record<string, RunExample>): void {
  const all = flat(items);
  const unknown = Object.keys(examples).filter((key) => !all.some((i) => keyOf(i) === key));
  if (unknown.length) throw new Error(`a run example names no request: ${unknown.join(", ")}`);
  for (const item of all) applyExample(item, examples[keyOf(item)] ?? {});
}

/**
 * Orders each folder for a whole run (its `first` requests, the others, its `last` ones, each group in the
 * converter's order) and takes out the clean-up requests, its cancellations before its deletions.
 */
export function orderForRuns(items: Item[], examples: Record<string, RunExample>): { kept: Item[]; cleanUp: Item[] } {
  const cleanUp: Item[] = [];
  const runs = (i: Item) => (i.item ? undefined : examples[keyOf(i)]?.runs);
  const order = (list: Item[]): Item[] => {
    const kept = list.flatMap((i) => {
      if (i.item) return [{ ...i, item: order(i.item) }];
      if (runs(i) === "clean-up") return cleanUp.push(i), [];
      return [i];
    });
    const rank = (i: Item) => (runs(i) === "first" ? 0 : runs(i) === "last" ? 2 : 1);
    return kept
      .map((i, n) => ({ i, n }))
      .sort((a, b) => rank(a.i) - rank(b.i) || a.n - b.n)
      .map(({ i }) => i)
      .filter((i) => !i.item || i.item.length > 0);
  };
  const kept = order(items);
  // The clean-up cancels before it deletes: a car a live booking holds is not to be deleted.
  const deletes = (i: Item) => (i.request?.method === "DELETE" ? 1 : 0);
  return { kept, cleanUp: cleanUp.sort((a, b) => deletes(a) - deletes(b)) };
}

/**
 * Moves the sign-out requests out of their folders into a last folder, after the clean-up, each after a fresh
 * sign-in of its kind (a copy of the collection's token request), so that one release never leaves the next with
 * a released token; returns the new top-level list.
 */
export function signOutLast(items: Item[], cleanUp: Item[] = []): Item[] {
  const moved: Item[] = [];
  const strip = (list: Item[]): Item[] =>
    list.flatMap((i) => {
      if (i.item) return [{ ...i, item: strip(i.item) }];
      if (SIGNS_OUT.some((re) => re.test(pathOf(i)))) {
        moved.push(i);
        return [];
      }
      return [i];
    });
  const kept = strip(items).filter((i) => !i.item || i.item.length > 0);
  const signIn = (path: string) => flat(kept).find((i) => i.request?.method === "POST" && pathOf(i) === path);
  const folder = moved.flatMap((release) => {
    const login = signIn(/releaseToken/i.test(pathOf(release)) ? "Platform.svc/getToken2" : "api/token");
    return login ? [{ ...structuredClone(login), name: `Sign in again for: ${release.name}` }, release] : [release];
  });
  return moved.length || cleanUp.length ? [...kept, { name: SIGN_OUT_FOLDER, item: [...cleanUp, ...folder] }] : kept;
}

/** Lines of a test every request gets: still signed in, no server error, and a readable body. */
export const REQUEST_TEST = [
  'pm.test("answered, still signed in, no server error", function () {',
  "  pm.expect(pm.response.code).to.not.be.oneOf([401, 500, 502, 503]);",
  "});",
  'pm.test("a readable body", function () {',
  '  var type = pm.response.headers.get("Content-Type") || "";',
  '  if (type.indexOf("json") >= 0) pm.expect(function () { pm.response.json(); }).to.not.throw();',
  '  else pm.expect(pm.response.text()).to.be.a("string");',
  "});",
];

/**
 * Gives every request the generic test besides its own, and a check of its status when it has none (a request
 * without a test of its own expects 2xx).
 */
export function testEveryRequest(items: Item[]): void {
  for (const i of flat(items)) {
    const events = (i.event ??= []);
    let test = events.find((e) => e.listen === "test");
    if (!test) events.push((test = script("test", [])));
    const lines: string[] = test.script.exec;
    if (!lines.some((l) => /pm\.response\.to\.have\.status\(|pm\.test\("answers /.test(l))) lines.unshift(answers());
    if (!lines.some((l) => l.includes("still signed in"))) lines.push(...REQUEST_TEST);
  }
}

/**
 * A stream never ends, so a collection run would wait on it: the event stream request is skipped in runs unless the
 * collection variable `followEvents` is "true" (send it alone in Postman to watch the events).
 */
export function skipStreamsInRuns(items: Item[]): void {
  for (const i of items) {
    if (i.item) skipStreamsInRuns(i.item);
    else if (pathOf(i) === "api/events")
      (i.event ??= []).push({
        listen: "prerequest",
        script: {
          type: "text/javascript",
          exec: ['if (pm.collectionVariables.get("followEvents") !== "true") pm.execution.skipRequest();'],
        },
      });
  }
}
