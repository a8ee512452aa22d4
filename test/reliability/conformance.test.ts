import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import newman, { type NewmanRunSummary } from "newman";
import { answerChecker } from "../support/openapi-answers";
import { startDatabase, ON_POSTGRES, type TestDatabase } from "../support/pg-databases";
import { BUN, ROOT, startServer, tempDir, type RunningServer } from "../support/process";

// The service held to the OpenAPI document it serves, by an outside tool (docs/security.md#conformance): Portman
// (@apideck/portman) reads the served document twice. Once with the served Postman collection, whose run reaches
// every operation with a production service's own values (two companies with both tokens each, a car, bookings):
// Portman writes its contract tests into every request (the status, Content-Type, a JSON body, the body against the
// response schema). Once alone: Portman makes a request of every operation from the document's examples, and fuzz
// variations of it (a required member left out, a string past its maxLength or under its minLength, a number past
// its bounds) with the run's credentials, one without a credential and one sending its body as text. newman runs it
// all against a production service: no answer may be 5xx, every variation is refused (4xx), and every answer, errors
// included, must be what the document says its operation answers with that status (test/support/openapi-answers.ts).
// Portman fills what the document gives no example for with random words, so each run sends a little differently.
let server: RunningServer;
let database: TestDatabase | undefined;
let dir: string;
let document: any;
let collection: any;
const METRICS_TOKEN = randomBytes(32).toString("hex");

/** The never-ending event stream is left out of runs (the served collection skips it; a variation would wait forever). */
const STREAM = "GET /api/events";
/** Generated requests that would end the run's own tokens (the served collection releases them last, and checks it). */
const RELEASES = ["POST /api/token/release", "GET /Platform.svc/releaseToken/V1", "POST /Platform.svc/releaseToken/V1"];
/** At most this many variations of one operation and kind run, so the file stays fast. */
const VARIATIONS_PER_OPERATION = 10;

const all = (items: any[]): any[] => items.flatMap((i) => (i.item ? all(i.item) : [i]));
const operationOf = (item: any) => `${item.request.method} /${item.request.url.path.join("/").replace(/:(\w+)/g, "{$1}")}`;
const tests = (item: any) => (item.event ?? []).filter((e: any) => e.listen === "test").flatMap((e: any) => e.script.exec).join("\n");
/** What a request sends besides its path: body, query, headers and credential. */
const sent = (item: any) => {
  const raw = item.request.body?.raw ?? "";
  let body = raw;
  try {
    body = JSON.stringify(JSON.parse(raw));
  } catch {}
  const pairs = (list: any[] = []) => list.filter((p) => !p.disabled).map((p) => `${p.key}=${p.value}`).sort();
  return JSON.stringify([body, pairs(item.request.url.query), pairs(item.request.header), item.request.auth ?? null]);
};

/**
 * Whether a variation breaks what it says it breaks: it sends something its request does not, and a "maximum length"
 * variation of a query parameter or header sends more than nothing (Portman cannot lengthen an empty example: it
 * only switches the parameter on, and an empty value is a valid one).
 */
function breaks(variation: any, request: any): boolean {
  if (sent(variation) === sent(request)) return false;
  const field = /\[maximum length ([^\]]+)\]$/.exec(variation.name)?.[1];
  const named = [...(variation.request.url.query ?? []), ...(variation.request.header ?? [])].find((p: any) => p.key === field && !p.disabled);
  return named?.value !== "";
}

/** Runs Portman's CLI on the served document (and a Postman collection to start from) with a configuration of test/conformance/. */
async function portman(name: string, config: string, localPostman?: unknown): Promise<any> {
  const work = join(dir, name);
  mkdirSync(work);
  // Portman's OpenAPI parser knows 3.1.0 and 3.1.1; 3.1.2 changed only the specification's wording, no schema.
  writeFileSync(join(work, "openapi.json"), JSON.stringify({ ...document, openapi: "3.1.1" }));
  const args = ["-l", "openapi.json", "-c", join(ROOT, "test/conformance", config), "-o", "portman.json"];
  if (localPostman) {
    writeFileSync(join(work, "served.json"), JSON.stringify(localPostman));
    args.push("--localPostman", "served.json");
  }
  // In a directory of its own: Portman reads a .env and writes working files where it runs.
  const proc = Bun.spawn([BUN, join(ROOT, "node_modules/@apideck/portman/bin/portman"), ...args], { cwd: work, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  // Portman switches a schema check off (and says so) for a schema it cannot compile: that is a failure here.
  if (code !== 0 || /not being validated|schemaValidation skipped/i.test(out + err)) throw new Error(`portman (${config}) exited with ${code}:\n${out}${err}`);
  return JSON.parse(readFileSync(join(work, "portman.json"), "utf8"));
}

/** Whether a pm.test line opens one of Portman's checks of an operation's 2xx answer (its status or its schema). */
const SUCCESS_CHECK = /^pm\.test\(".* - (Status code is 2xx|Schema is valid)"/;
/** The comment and schema lines Portman writes before those checks. */
const SUCCESS_PREAMBLE = /^(\/\/ Validate status 2xx|\/\/ Response Validation|\/\/ Validate if response matches JSON schema|const schema = )/;

/**
 * A request of the served collection that shows an error on purpose (its own test: `answers 409 NO_SHOW_TOO_EARLY, on
 * purpose`) on an operation other requests send for a 2xx: Portman's checks of the 2xx answer are taken out of it —
 * its own test checks the status and code, and the answer check of the run checks its body against the document.
 */
function withoutSuccessChecks(item: any): any {
  if (item.item) return { ...item, item: item.item.map(withoutSuccessChecks) };
  const test = item.event?.find((e: any) => e.listen === "test");
  const lines: string[] = test ? test.script.exec.join("\n").split("\n") : [];
  if (!lines.some((l) => /^pm\.test\("answers \d+ [A-Z_]+, on purpose/.test(l))) return item;
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (skipping) skipping = line !== "});";
    else if (SUCCESS_CHECK.test(line)) skipping = true;
    else if (!SUCCESS_PREAMBLE.test(line)) kept.push(line);
  }
  return { ...item, event: item.event.map((e: any) => (e === test ? { ...e, script: { ...e.script, exec: kept } } : e)) };
}

/**
 * The run: the served collection's folders with Portman's contract tests; Portman's own request of each operation;
 * its variations that break what they say (at most VARIATIONS_PER_OPERATION of an operation and kind); then
 * the served collection's clean-up, which ends the run's bookings and cars and releases its tokens.
 */
function runOrder(contract: any, fuzz: any): any {
  const variationsFolder = fuzz.item.find((f: any) => f.name === "Variation Tests");
  const generated = all(fuzz.item.filter((f: any) => f !== variationsFolder)).filter((r) => ![STREAM, ...RELEASES].includes(operationOf(r)));
  const base = new Map(generated.map((r) => [operationOf(r), r]));
  const perKind = new Map<string, number>();
  const bodies = new Set(generated.filter((r) => r.request.body?.raw).map(operationOf));
  const variations = all(variationsFolder.item).filter((v: any) => {
    const op = operationOf(v);
    // One operation's variations of one kind (the variation's name in test/conformance/portman-fuzz.json) count together.
    const kind = `${op} ${/\[(fuzz|no credential|not JSON)\]/.exec(v.name)?.[1]}`;
    const count = perKind.get(kind) ?? 0;
    if (op === STREAM || !base.has(op) || !breaks(v, base.get(op)) || count >= VARIATIONS_PER_OPERATION) return false;
    // A body sent as text: only where the operation takes a body (a Content-Type alone changes nothing).
    if (v.name.endsWith("[not JSON]") && !bodies.has(op)) return false;
    perKind.set(kind, count + 1);
    return true;
  });
  const folders = contract.item.slice(0, -1).map(withoutSuccessChecks);
  const cleanUp = contract.item.at(-1);
  expect(cleanUp.name).toStartWith("Clean up");
  return { ...contract, item: [...folders, { name: "Generated requests", item: generated }, { name: "Fuzz variations", item: variations }, cleanUp] };
}

beforeAll(async () => {
  dir = tempDir("tripswitch-conformance-");
  database = ON_POSTGRES ? await startDatabase() : undefined;
  server = await startServer(
    {
      ...(database ? { DATABASE_URL: database.url, DB_PATH: join(dir, "index.db") } : { DB_PATH: join(dir, "conformance.sqlite") }),
      NODE_ENV: "production",
      JWT_SECRET: randomBytes(48).toString("base64"),
      SECRETS_KEY: randomBytes(32).toString("hex"),
      METRICS_TOKEN,
      // As in production: the city gazetteer is read as the service starts (while Portman writes), not at the run's first city search.
      GAZETTEER_WARM: "1",
    },
    { timeoutMs: 60_000 },
  );
  document = await (await fetch(`${server.base}/docs/json`)).json();
  const served = await (await fetch(`${server.base}/docs/postman.json`)).json();
  const [contract, fuzz] = await Promise.all([portman("contract", "portman-contract.json", served), portman("fuzz", "portman-fuzz.json")]);
  collection = runOrder(contract, fuzz);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await database?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(of: unknown): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) =>
    newman.run(
      { collection: of, envVar: [{ key: "metricsToken", value: METRICS_TOKEN }], reporters: [], timeoutRequest: 45_000, timeout: 150_000 },
      (error: Error | null, summary: NewmanRunSummary) => (error ? reject(error) : resolve(summary)),
    ),
  );
}

describe("conformance: the service answers as the OpenAPI document it serves says (Portman's contract and fuzz tests, run by newman)", () => {
  const folder = (name: string) => all(collection.item.find((f: any) => f.name === name).item);
  const served = () => all(collection.item.filter((f: any) => !["Generated requests", "Fuzz variations"].includes(f.name)));

  test("Portman writes contract tests into a request of every operation, a request of its own for each, and fuzz variations", () => {
    const operations = Object.entries(document.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).filter((m) => ["get", "post", "put", "patch", "delete"].includes(m)).map((m) => `${m.toUpperCase()} ${path}`),
    );
    // Every operation but the event stream is sent with Portman's checks of its status and Content-Type (help is a
    // redirect the runner follows: its 302 is checked below).
    const checked = new Set(served().filter((r) => /\[\w+\]::\/\S+ - (Status code is 2xx|Response status code is \d+)/.test(tests(r))).map(operationOf));
    expect(operations.filter((op) => ![STREAM, "GET /Platform.svc/help"].includes(op) && !checked.has(op))).toEqual([]);
    // A JSON answer's body is checked against its schema inline, never switched off (Portman does, for a schema it
    // cannot read: a $ref left in it, or one its validator cannot compile).
    expect(served().filter((r) => /Response Validation - Disabled/.test(tests(r))).map((r) => r.name)).toEqual([]);
    const schemaChecked = new Set(served().filter((r) => / - Schema is valid/.test(tests(r))).map(operationOf));
    expect(schemaChecked.size).toBeGreaterThanOrEqual(50);
    // Portman's own request of every operation (from the document's examples), but the stream and the releases.
    expect(new Set(folder("Generated requests").map(operationOf)).size).toBe(operations.length - 1 - RELEASES.length);
    // Fuzz variations that change what is sent, for the operations whose body, query or headers have bounds.
    const variations = folder("Fuzz variations");
    const fuzzed = new Set(variations.map(operationOf));
    expect(fuzzed.size).toBeGreaterThanOrEqual(20);
    for (const op of ["POST /Platform.svc/sendTrip/V1", "POST /api/quotes", "POST /api/fleet", "POST /api/company/register", "GET /api/search/fleet"]) {
      expect(fuzzed.has(op)).toBe(true);
    }
    expect(variations.filter((v: any) => v.name.includes("[fuzz]")).length).toBeGreaterThanOrEqual(100);
    // And each operation that wants a credential, sent without one; each that takes a body, sent it as text.
    expect(variations.filter((v: any) => v.name.includes("[no credential]")).length).toBeGreaterThanOrEqual(50);
    expect(variations.filter((v: any) => v.name.includes("[not JSON]")).length).toBeGreaterThanOrEqual(15);
    expect(variations.every((v: any) => tests(v).includes("no server error"))).toBe(true);
  });

  test("newman runs them against a production service: no 5xx, fuzz refused, every answer as the document says", async () => {
    const summary = await run(collection);
    // Each request's own execution (a script's pm.sendRequest shows as an execution of its request too: the last is its own).
    const answered = [...new Map(summary.run.executions.map((e) => [e.item.id, e])).values()].filter((e) => e.response);
    // Every request but the event stream answered.
    expect(answered.length).toBe(all(collection.item).filter((r) => operationOf(r) !== STREAM).length);
    const named = (e: (typeof answered)[number]) => `${e.item.name}: ${e.response!.code} ${e.response!.stream.toString().slice(0, 300)}`;
    expect(answered.filter((e) => e.response!.code >= 500).map(named)).toEqual([]);
    // Portman's contract checks, the variations' and the served collection's own: none failed.
    expect(summary.run.failures.map((f) => `${f.source?.name}: ${f.error?.message}`)).toEqual([]);
    // A variation breaks a bound the document states, or leaves out the credential: the service refuses it (without a
    // credential 401, or 400 where the body is checked first and Portman's example values fail it).
    const variations = new Set(folder("Fuzz variations").map((v: any) => v.id));
    expect(answered.filter((e) => variations.has(e.item.id) && (e.response!.code < 400 || e.response!.code >= 500)).map(named)).toEqual([]);
    expect(answered.filter((e) => e.item.name.endsWith("[not JSON]") && e.response!.code !== 415).map(named)).toEqual([]);
    const anonymous = answered.filter((e) => e.item.name.endsWith("[no credential]"));
    const bodyFirst = (e: (typeof answered)[number]) => e.response!.code === 400 && JSON.parse(e.response!.stream.toString()).code === "VALIDATION_FAILED";
    expect(anonymous.filter((e) => e.response!.code !== 401 && !bodyFirst(e)).map(named)).toEqual([]);
    // Every answer, errors included, is what the document says (the runner follows /Platform.svc/help's redirect).
    const checker = answerChecker(document);
    const problems = answered
      .filter((e) => !(e.request.method === "GET" && e.request.url.getPath() === "/Platform.svc/help"))
      .flatMap((e) =>
        checker
          .problems({
            method: e.request.method,
            path: e.request.url.getPath(),
            status: e.response!.code,
            contentType: e.response!.headers.get("content-type") ?? "",
            body: e.response!.stream.toString(),
          })
          .map((p) => `${e.item.name}: ${p}`),
      );
    expect(problems).toEqual([]);
    const help = await fetch(`${server.base}/Platform.svc/help`, { redirect: "manual" });
    expect(checker.problems({ method: "GET", path: "/Platform.svc/help", status: help.status, contentType: help.headers.get("content-type") ?? "", body: await help.text() })).toEqual([]);
  }, 180_000);

  test("the answer check catches an undocumented status, Content-Type or member, and a missing or mistyped one", () => {
    const checker = answerChecker(document);
    const company = { netid: "ACME-LIMO", name: "Acme", coType: "IO", plan: "FREE", sandbox: false };
    const answer = (status: number, body: unknown, contentType = "application/json") => ({
      method: "GET",
      path: "/api/company",
      status,
      contentType,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    expect(checker.problems(answer(200, { success: true, data: company }))).toEqual([]);
    expect(checker.problems(answer(401, { success: false, message: "m", code: "INVALID_TOKEN" }))).toEqual([]);
    expect(checker.problems(answer(429, { success: false, message: "m", code: "RATE_LIMITED" }))).toEqual([]);
    expect(checker.problems(answer(409, { success: false, message: "m", code: "X" }))).toEqual([expect.stringContaining("status not documented")]);
    expect(checker.problems(answer(200, '"OK"', "text/plain"))).toEqual([expect.stringContaining("Content-Type text/plain")]);
    const { plan: _plan, ...withoutPlan } = company;
    expect(checker.problems(answer(200, { success: true, data: withoutPlan })).join()).toContain("must have required property 'plan'");
    expect(checker.problems(answer(200, { success: true, data: { ...company, sandbox: "no" } })).join()).toContain("/data/sandbox must be boolean");
    expect(checker.problems(answer(200, { success: true, data: { ...company, secret: "x" } })).join()).toContain("must NOT have additional properties");
    expect(checker.problems({ ...answer(200, {}), path: "/api/no-such-route" })).toEqual([expect.stringContaining("no operation")]);
  });
});
