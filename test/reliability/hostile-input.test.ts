import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { createHarness, type Harness } from "../support/harness";
import { addVehicle, vehicle } from "../support/fleet";
import { parties, regularTrip, sendTrip, type Party } from "../support/trips";
import { fromSchema, headerSafe, mutate, naughty, NAUGHTY, problemsOf, type JsonSchema } from "../support/fuzz";

// Hostile input against every route of both surfaces, driven by the service's own OpenAPI document (issue 7).
// FUZZ_RUNS sets the number of generated cases per route (default 100 in CI; 400 runs in about 10 s).
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 100));
const PASSWORD = "correct horse battery staple";
const DELIVERY_PASSWORD = "delivery-pass-9f8e7d6c5b4a";

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  body?: JsonSchema;
  auth: "core" | "platform" | "any" | "none";
}

let h: Harness;
let ops: Operation[] = [];
let requester: Party;
let provider: Party;
let sacrificialToken: string;
let slug: string;
let transactionId: string;
let deliveryId = "1";
let secrets: string[] = [];
const tally = new Map<string, { cases: number; fiveXX: number; ms: number; statuses: Record<number, number> }>();

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider } = await parties(h, "-FZ"));
  sacrificialToken = await h.platformToken(requester.netid, PASSWORD);
  slug = await addVehicle(h, { authorization: `Bearer ${provider.jwt}` }, { name: "Fuzz Sedan" });
  const booked = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
  transactionId = booked.body.transactionId;
  const integration = await h.request("PUT", "/api/company/integration", {
    headers: { authorization: `Bearer ${requester.jwt}` },
    body: { webhookUrl: "http://127.0.0.1:9/hook", deliveryUrl: "http://127.0.0.1:9/in", deliveryAuth: { username: "bookwell", password: DELIVERY_PASSWORD } },
  });
  expect(integration.status).toBe(200);
  const deliveries = await h.request("GET", "/api/webhooks/deliveries", { headers: { authorization: `Bearer ${requester.jwt}` } });
  if (deliveries.body.data?.items?.[0]) deliveryId = String(deliveries.body.data.items[0].id);
  secrets = [PASSWORD, DELIVERY_PASSWORD, integration.body.data.webhookSecret, requester.jwt, requester.token, provider.jwt, provider.token, sacrificialToken];

  const spec = (await h.request("GET", "/docs/json")).body;
  for (const [path, byMethod] of Object.entries<any>(spec.paths)) {
    if (path.startsWith("/docs")) continue;
    for (const [method, op] of Object.entries<any>(byMethod)) {
      const security = JSON.stringify(op.security ?? []);
      const auth: Operation["auth"] = security.includes("platformToken")
        ? "any"
        : security.includes("bearer")
          ? "core"
          : path.startsWith("/Platform.svc") && !/getToken2|releaseToken/.test(path)
            ? "platform"
            : "none";
      ops.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], body: op.requestBody?.content?.["application/json"]?.schema, auth });
    }
  }
});

afterAll(() => {
  const lines = [...tally].map(([route, t]) => `  ${route}: ${t.cases} cases, ${t.fiveXX} 5xx (${Object.entries(t.statuses).map(([k, v]) => `${k}×${v}`).join(" ")}; ${Math.round(t.ms)} ms)`);
  const total = [...tally.values()].reduce((a, t) => ({ cases: a.cases + t.cases, fiveXX: a.fiveXX + t.fiveXX }), { cases: 0, fiveXX: 0 });
  console.log(`hostile input: ${tally.size} routes, ${total.cases} cases, ${total.fiveXX} 5xx (FUZZ_RUNS=${RUNS})\n${lines.join("\n")}`);
  h?.close();
});

/** A valid body per operation, so that mutations reach past validation into the use cases. */
function seedFor(op: Operation): unknown {
  const n = Math.floor(Math.random() * 1e9);
  switch (`${op.method} ${op.path}`) {
    case "POST /api/company/register":
      return { name: `Fuzz Co ${n}`, netid: `FZ${n}`, mainEmail: `fz${n}@example.com`, password: PASSWORD, confirmPassword: PASSWORD, mainPhone: `+1212555${String(n % 10000).padStart(4, "0")}`, coType: "CO" };
    case "POST /api/token":
    case "POST /Platform.svc/getToken2":
      return { uid: `nobody-${n}`, pw: "not the password" };
    case "PUT /api/company/integration":
      return { deliveryUrl: "http://127.0.0.1:9/in", deliveryAuth: { username: "u", password: DELIVERY_PASSWORD }, luggage: "notes", webhookUrl: "http://127.0.0.1:9/hook" };
    case "POST /api/fleet":
    case "PATCH /api/fleet/{slug}":
      return vehicle({ name: `Fuzz ${n}` });
    case "POST /api/fleet/import":
      return [vehicle({ name: `Import ${n}` }), vehicle({ name: `Import ${n} b` })];
    case "POST /Platform.svc/sendTrip/V1":
      return regularTrip(requester.netid, provider.netid);
    case "POST /Platform.svc/providerUpdateStatusByTransactionId/{transactionId}/V1":
      return { status: "CONFIRMED", providerResNo: `P-${n}`, totalAmount: "120.00" };
    default:
      return {};
  }
}

const knownIds: Record<string, () => string> = { slug: () => slug, transactionId: () => transactionId, id: () => deliveryId };

interface Case {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

function caseArb(op: Operation): fc.Arbitrary<Case> {
  const pathParams = op.params.filter((p) => p.in === "path");
  const queryParams = op.params.filter((p) => p.in === "query").map((p) => p.name);
  const idArb = (name: string) =>
    fc.oneof(fc.constant(knownIds[name]?.() ?? "x"), fc.uuid(), naughty, fc.constantFrom("0", "-1", "99999999999999999999", "1e3", "%", "..", "a/b"));
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, idArb(p.name)]))) as fc.Arbitrary<Record<string, string>>;
  const versionArb = op.path.endsWith("/V1") ? fc.constantFrom("/V1", "/v1", "") : fc.constant("");
  const queryValue = fc.oneof(naughty, fc.constantFrom("1", "0", "-1", "20", "100", "101", "1e999", "NaN", "JFK", "JFK,LAX", "40.6", "-73.7", "", " "), fc.string({ unit: "binary", maxLength: 20 }));
  const queryArb = fc.array(fc.tuple(fc.oneof({ arbitrary: fc.constantFrom(...(queryParams.length ? queryParams : ["q"])), weight: 5 }, { arbitrary: naughty, weight: 1 }), queryValue), { maxLength: 6 });
  const bodyArb: fc.Arbitrary<unknown> = fc.oneof(
    { arbitrary: op.body ? fromSchema(op.body) : fc.jsonValue({ maxDepth: 2 }), weight: 4 },
    { arbitrary: fc.constant(null).chain(() => mutate(seedFor(op))), weight: 4 },
    { arbitrary: fc.constant(null).map(() => seedFor(op)), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
  const authArb = fc.constantFrom("good", "good", "good", "other", "none", "garbage", "released");
  const contentTypeArb = fc.constantFrom("application/json", "application/json", "application/json", "application/json; charset=utf-8", "text/plain", "application/vnd.api+json", "text/html", "application/x-www-form-urlencoded", "");
  const extraHeaderArb = fc.record({ idem: fc.option(naughty, { freq: 3 }), requestId: fc.option(naughty, { freq: 4 }), asProvider: fc.boolean() });

  return fc.tuple(pathArb, versionArb, queryArb, bodyArb, authArb, contentTypeArb, extraHeaderArb, naughty).map(([params, version, query, body, auth, contentType, extra, garbage]) => {
    let path = op.path.replace(/\{(\w+)\}/g, (_, name) => encodePathSegment(params[name]));
    if (version !== "/V1" && path.endsWith("/V1")) path = path.slice(0, -3) + version;
    const search = new URLSearchParams(query.map(([k, v]) => [k, v] as [string, string])).toString();
    const headers: Record<string, string> = {};
    const who = extra.asProvider ? provider : requester;
    const credential = (kind: Operation["auth"]) => (kind === "platform" ? { token: who.token } : kind === "core" ? { authorization: `Bearer ${who.jwt}` } : {});
    if (auth === "good") Object.assign(headers, op.auth === "any" ? credential(extra.asProvider ? "platform" : "core") : credential(op.auth));
    else if (auth === "other") Object.assign(headers, credential(op.auth === "core" ? "platform" : "core"));
    else if (auth === "garbage") {
      const value = headerSafe(garbage) ?? "garbage";
      Object.assign(headers, { authorization: `Bearer ${value}`, token: value });
    } else if (auth === "released") Object.assign(headers, { token: "released-" + "0".repeat(40) });
    if (op.path.includes("releaseToken") && auth === "good") headers.token = sacrificialToken;
    if (extra.idem !== null && headerSafe(extra.idem)) headers["idempotency-key"] = headerSafe(extra.idem)!;
    if (extra.requestId !== null && headerSafe(extra.requestId)) headers["x-request-id"] = headerSafe(extra.requestId)!;
    const hasBody = op.method !== "GET" && op.method !== "HEAD" && body !== undefined;
    if (hasBody && contentType) headers["content-type"] = contentType;
    return { method: op.method, url: `http://localhost${path}${search ? `?${search}` : ""}`, headers, body: hasBody ? JSON.stringify(body) : undefined };
  });
}

async function send(route: string, c: Case): Promise<string[]> {
  const t = tally.get(route) ?? { cases: 0, fiveXX: 0, ms: 0, statuses: {} };
  tally.set(route, t);
  t.cases++;
  const t0 = performance.now();
  const response = await h.app.handle(new Request(c.url, { method: c.method, headers: c.headers, body: c.body as BodyInit | undefined }));
  const text = await bodyText(response);
  t.ms += performance.now() - t0;
  if (response.status >= 500) t.fiveXX++;
  t.statuses[response.status] = (t.statuses[response.status] ?? 0) + 1;
  const requestText = `${decodeURIComponentSafe(c.url)} ${JSON.stringify(c.headers)} ${typeof c.body === "string" ? c.body : ""}`;
  return problemsOf(response.status, response.headers.get("content-type"), text, requestText, secrets).map((p) => `${p} — ${c.method} ${c.url.slice(0, 300)}`);
}

/** The body as text; an event stream (it never ends) is read for its first chunk, then closed. */
async function bodyText(response: Response): Promise<string> {
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream") || !response.body) return response.text();
  const reader = response.body.getReader();
  const first = await reader.read();
  await reader.cancel();
  return first.value ? new TextDecoder().decode(first.value) : "";
}

/** Percent-encodes a path segment; a lone surrogate becomes its (invalid) CESU-8 bytes rather than an exception. */
function encodePathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.toWellFormed()) + "%ED%A0%80";
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

describe("hostile input, generated from the OpenAPI document", () => {
  test("the document lists both surfaces", () => {
    const paths = new Set(ops.map((o) => o.path));
    expect(ops.length).toBeGreaterThanOrEqual(25);
    expect(paths.has("/Platform.svc/sendTrip/V1")).toBe(true);
    expect(paths.has("/api/search/fleet")).toBe(true);
    expect(ops.filter((o) => o.body).length).toBeGreaterThanOrEqual(8);
  });

  test(
    "every route: never a 5xx, every error in the envelope, no stack trace, SQL, file path or secret",
    async () => {
      for (const op of ops) {
        const route = `${op.method} ${op.path}`;
        await fc.assert(
          fc.asyncProperty(caseArb(op), async (c) => {
            const problems = await send(route, c);
            // FUZZ_DUMP=<file> keeps the whole failing case for replay.
            if (problems.length && process.env.FUZZ_DUMP) writeFileSync(process.env.FUZZ_DUMP, JSON.stringify(c));
            if (problems.length) throw new Error(`${problems.join("\n")}\nbody: ${String(c.body).slice(0, 500)}\nheaders: ${JSON.stringify(c.headers)}`);
          }),
          { numRuns: RUNS, endOnFailure: true },
        );
      }
    },
    120_000,
  );

  test(
    "every route: invalid UTF-8, deep nesting, oversized bodies, huge numbers, wrong content types, duplicate and broken query strings",
    async () => {
      const deepArray = "[".repeat(100_000) + "]".repeat(100_000);
      const deepObject = '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000);
      const oversized = JSON.stringify({ name: "x".repeat(1_100_000) });
      const bodies: [string, string | Uint8Array][] = [
        ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d])],
        ["overlong UTF-8", new Uint8Array([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d])],
        ["deep array", deepArray],
        ["deep object", deepObject],
        ["oversized", oversized],
        ["huge numbers", '{"maxPassengers":1e999999,"lat":-1e400,"lon":123456789012345678901234567890,"limit":1e308,"passengerCount":1e999}'],
        ["prototype keys", '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"uid":"a","pw":"b"}'],
        ["method keys", '{"uid":{"toString":1,"valueOf":2},"name":{"toString":"x"},"type":{"toJSON":1},"pw":"b"}'],
        ["duplicate keys", '{"uid":"a","uid":"b","pw":"c","pw":"d"}'],
        ["BOM", "\uFEFF{}"],
        ["NUL", '{"name":"a\\u0000b"}'],
        ["lone surrogate", '{"name":"\\ud800","uid":"\\udfff","pw":"\\ud800\\udc00"}'],
        ["not JSON", "uid=a&pw=b"],
        ["truncated", '{"uid": "a", "pw":'],
        ["scalar", "12345678901234567890"],
        ["empty", ""],
      ];
      const FIXED_BODIES = bodies.length;
      const contentTypes = ["application/json", "text/plain", "text/html", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json; charset=utf-16", "", "application/json, text/html"];
      const queries = ["limit=1&limit=2&offset=0&offset=-1", "airports=JFK&airports=LAX&lat=1&lat=2", "%", "a=%E0%A4%A", "limit=%FF", "q=" + "%F0%9F%98%80".repeat(500), "limit[]=1&offset[a]=2", "__proto__[x]=1&constructor[prototype][y]=2", "x=" + "y".repeat(20_000)];
      for (const op of ops) {
        bodies.length = FIXED_BODIES;
        const route = `${op.method} ${op.path}`;
        const path = op.path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(knownIds[name]?.() ?? "x"));
        const auth: Record<string, string> = op.auth === "platform" ? { token: requester.token } : op.auth === "none" ? {} : { authorization: `Bearer ${requester.jwt}` };
        const failures: string[] = [];
        if (op.method !== "GET") {
          // A deep value where the schema wants something else: the validator's error report used to choke on it.
          const field = Object.keys(op.body?.properties ?? { name: {} })[0];
          bodies.push([`deep value in ${field}`, `{${JSON.stringify(field)}:${deepObject}}`]);
          for (const [label, body] of bodies)
            for (const type of label === "invalid UTF-8" || label === "deep object" ? contentTypes : ["application/json"])
              failures.push(...(await send(route, { method: op.method, url: `http://localhost${path}`, headers: { ...auth, ...(type ? { "content-type": type } : {}) }, body })).map((p) => `${label} as ${type}: ${p}`));
        }
        for (const query of queries) failures.push(...(await send(route, { method: op.method, url: `http://localhost${path}?${query}`, headers: auth })).map((p) => `query ${query.slice(0, 40)}: ${p}`));
        const hostileHeaders: Record<string, string>[] = [{ authorization: "Bearer " + "a".repeat(10_000) }, { authorization: "Bearer a.b.c" }, { authorization: "Basic " + btoa("a:b") }, { token: "é".repeat(100) }, { "idempotency-key": "k".repeat(300) }, { "x-request-id": "../../etc" }];
        for (const header of hostileHeaders)
          failures.push(...(await send(route, { method: op.method, url: `http://localhost${path}`, headers: { ...auth, ...header, ...(op.method !== "GET" ? { "content-type": "application/json" } : {}) }, body: op.method !== "GET" ? "{}" : undefined })).map((p) => `header ${Object.keys(header)[0]}: ${p}`));
        expect(failures).toEqual([]);
      }
    },
    120_000,
  );

  test("the naughty corpus is the maintained one, with its hundreds of strings", () => {
    expect(NAUGHTY.length).toBeGreaterThan(450);
  });

  test("the oracle catches a 5xx, an error outside the envelope, a stack trace, SQL, a path and a secret", () => {
    const json = "application/json";
    expect(problemsOf(200, json, '{"success":true}', "", ["s3cret"])).toEqual([]);
    expect(problemsOf(500, json, '{"success":false,"message":"Internal error","code":"INTERNAL"}', "", [])).toHaveLength(1);
    expect(problemsOf(400, json, '{"error":"bad"}', "", [])).toHaveLength(1);
    expect(problemsOf(400, "text/plain", '{"success":false,"message":"m","code":"C"}', "", [])).toHaveLength(1);
    expect(problemsOf(200, json, "Error: x\n    at handler (/srv/app.ts:3:9)", "", []).some((p) => p.startsWith("stack trace"))).toBe(true);
    expect(problemsOf(200, json, "SQLITE_CONSTRAINT: UNIQUE constraint failed", "", []).some((p) => p.startsWith("SQL"))).toBe(true);
    expect(problemsOf(200, json, `see ${process.cwd()}/src/main.ts`, "", []).some((p) => p.startsWith("file path"))).toBe(true);
    expect(problemsOf(200, json, '{"token":"s3cret"}', "", ["s3cret"])).toHaveLength(1);
    // Text the request itself carried (a booking echoes its notes) is not a leak.
    expect(problemsOf(200, json, '{"notes":"SELECT * FROM users"}', '{"notes":"SELECT * FROM users"}', [])).toEqual([]);
  });
});
