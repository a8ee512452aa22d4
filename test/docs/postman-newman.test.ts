import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import newman, { type NewmanRunSummary } from "newman";
import { postJson, registerCompany, startServer, tempDir, type RunningServer } from "../support/process";

// The Postman collection the service serves, run by newman (Postman's own runner) against a fresh PRODUCTION service
// (NODE_ENV=production: no demo companies, real password hashing, /metrics behind METRICS_TOKEN). Its "Core flow"
// registers an operator and a booking company, lists the operator's car, finds, quotes, books and reads it, then
// cancels the booking and deletes the car; the whole collection sends every other operation with the run's own
// values, then runs an airport trip to CLOSE (a NO_SHOW refused as too early, the WAITING lines). Every request checks its answer (2xx, or the error it shows on purpose), and a run leaves nothing offered
// or booked: the database is read after each run.
let server: RunningServer;
let dir: string;
let collection: any;
const METRICS_TOKEN = randomBytes(32).toString("hex");

beforeAll(async () => {
  dir = tempDir("tripswitch-postman-");
  server = await startServer(
    {
      DB_PATH: join(dir, "postman.sqlite"),
      NODE_ENV: "production",
      JWT_SECRET: randomBytes(48).toString("base64"),
      SECRETS_KEY: randomBytes(32).toString("hex"),
      METRICS_TOKEN,
    },
    { timeoutMs: 60_000 },
  );
  const res = await fetch(`${server.base}/docs/postman.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  collection = await res.json();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Execution = NewmanRunSummary["run"]["executions"][number];

function run(of: any, folder?: string): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) =>
    newman.run(
      // The service's metrics token comes from the environment, as a Postman user would keep it. A request may wait
      // 45 s: the first city search loads the gazetteer, which takes longer than 15 s beside the rest of the suite.
      { collection: of, ...(folder ? { folder } : {}), envVar: [{ key: "metricsToken", value: METRICS_TOKEN }], reporters: [], timeoutRequest: 45_000 },
      (error: Error | null, summary: NewmanRunSummary) => (error ? reject(error) : resolve(summary)),
    ),
  );
}

const failuresOf = (summary: NewmanRunSummary) => summary.run.failures.map((f) => `${f.source?.name}: ${f.error?.message}`);
/** Each request's own execution (a script's pm.sendRequest shows as an execution of its request too: the last is its own). */
function ownExecutions(summary: NewmanRunSummary): Execution[] {
  const byItem = new Map<string, Execution>();
  for (const e of summary.run.executions) byItem.set(e.item.id, e);
  return [...byItem.values()];
}
const all = (items: any[]): any[] => items.flatMap((i) => (i.item ? all(i.item) : [i]));
const testLines = (item: any): string => (item.event ?? []).filter((e: any) => e.listen === "test").map((e: any) => e.script.exec.join("\n")).join("\n");

/** What a run left live: active cars of companies that are not sandboxes, and bookings still under way. */
function residue() {
  const db = new Database(join(dir, "postman.sqlite"), { readonly: true });
  try {
    const cars = db
      .query("SELECT f.netid, f.slug FROM fleet_entries f JOIN companies c ON c.netid = f.netid WHERE f.active AND NOT c.sandbox")
      .all();
    const bookings = db
      .query("SELECT transaction_id, status FROM bookings WHERE status NOT IN ('QUOTE', 'CLOSE', 'CANCEL', 'REJECT', 'NO_SHOW')")
      .all();
    const companies = (db.query("SELECT netid, sandbox FROM companies").all() as Array<{ netid: string; sandbox: number }>).map((c) => c.netid);
    return { cars, bookings, companies };
  } finally {
    db.close();
  }
}

describe("the served Postman collection", () => {
  test("is a v2.1 collection of every operation, pointed at the host it was asked from, each request checking its answer", () => {
    expect(collection.info.schema).toContain("v2.1.0");
    const variables = Object.fromEntries(collection.variable.map((v: { key: string; value: string }) => [v.key, v.value]));
    expect(variables.baseUrl).toBe(server.base);
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(["uid", "pw", "coreToken", "platformToken", "providerUid", "providerCoreToken", "providerPlatformToken", "metricsToken"]),
    );
    // No published password: the core flow sets a random one.
    expect(variables.pw).toBe("");
    const requests = all(collection.item);
    expect(requests.length).toBeGreaterThan(40);
    const byPath = (method: string, path: string) => requests.filter((i) => i.request.method === method && i.request.url.path.join("/") === path);
    // Tokens are captured by test scripts, and every protected request takes its token from the variables.
    expect(byPath("POST", "api/token").every((i) => testLines(i).includes('set("coreToken"') || testLines(i).includes('set("providerCoreToken"'))).toBe(true);
    expect(byPath("POST", "Platform.svc/getToken2").every((i) => /set\("(provider)?[pP]latformToken"/.test(testLines(i)))).toBe(true);
    for (const r of requests.filter((i) => i.request.auth)) {
      expect(JSON.stringify(r.request.auth)).toMatch(/\{\{(coreToken|platformToken|providerCoreToken|providerPlatformToken|metricsToken)\}\}/);
    }
    expect(JSON.stringify(byPath("POST", "Platform.svc/sendTrip/V1")[0].request.auth)).toContain("{{platformToken}}");
    expect(JSON.stringify(byPath("GET", "api/search/fleet")[0].request.auth)).toContain("{{coreToken}}");
    // /metrics takes the service's token, never a company's.
    expect(JSON.stringify(byPath("GET", "metrics")[0].request.auth)).toContain("{{metricsToken}}");
    // Every request checks its status: 2xx, or the error it shows on purpose (those are few, and listed here).
    expect(requests.filter((r) => !/pm\.response\.to\.have\.status\(|pm\.test\("answers /.test(testLines(r))).map((r) => r.name)).toEqual([]);
    const onPurpose = requests.flatMap((r) => [...testLines(r).matchAll(/pm\.test\("answers (\d+ [A-Z_]+), on purpose/g)].map((m) => `${r.request.method} ${r.request.url.path.join("/")}: ${m[1]}`));
    expect(onPurpose).toEqual([
      "GET Platform.svc/retryTransaction/:transactionId/V1: 409 NOTHING_TO_RETRY",
      "POST api/company/integration/webhook-verify: 409 NO_WEBHOOK_URL",
      "GET api/webhooks/deliveries/:id: 404 DELIVERY_NOT_FOUND",
      "POST api/webhooks/deliveries/:id/replay: 404 DELIVERY_NOT_FOUND",
      "POST api/webhooks/test: 409 NO_WEBHOOK_URL",
      "POST Platform.svc/providerUpdateStatusByTransactionId/:transactionId/V1: 409 NO_SHOW_TOO_EARLY",
    ]);
  });

  test("newman runs its core flow against a production service, and it leaves nothing offered or booked", async () => {
    const summary = await run(collection, "Core flow");
    expect(failuresOf(summary)).toEqual([]);
    const executions = ownExecutions(summary);
    expect(executions.map((e) => `${e.item.name} → ${e.response?.code}`)).toEqual([
      "1. Register an operator → 200",
      "2. Register a booking company → 200",
      "3. Get a core token → 200",
      "4. Get a platform token → 200",
      "5. The operator's core token → 200",
      "6. The operator's platform token → 200",
      "7. The operator lists a car at JFK → 200",
      "8. Search fleets around JFK: the operator's car is found → 200",
      "8a. Search fleets around a city (Boston, US) → 200",
      "9. Ask the operator for a quote → 200",
      "10. Book the first option → 200",
      "11. Read the booking → 200",
      "12. The FX table network quotes convert with → 200",
      "13. Cancel the booking (nothing stays booked) → 200",
      "13a. The booking company names what a give-back costs the operator → 200",
      "13b. Another trip to the operator, quoted → 200",
      "13c. Booked, for the operator to give back → 200",
      "13d. The operator accepts it → 200",
      "13e. The operator gives it back → 200",
      "13f. Read it: the cost recovery the operator owes → 200",
      "14. The operator deletes its car (nothing stays offered) → 200",
    ]);
    expect(summary.run.stats.assertions.failed).toBe(0);
    // The tokens its scripts captured went out as the two kinds: the JWT as a bearer, the platform token as `token`.
    const sent = executions.map((e) => e.request.headers.toObject());
    const coreToken = String(sent[7].authorization).replace(/^Bearer /, "");
    const platformToken = String(sent[9].token);
    expect(coreToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(platformToken).toMatch(/^\S{20,}$/);
    expect(platformToken).not.toBe(coreToken);
    expect(sent[9].authorization).toBeUndefined();
    expect(String(sent[11].authorization)).toBe(`Bearer ${coreToken}`);
    // The booking it made was the booking company's, with the operator, at the quoted price; then cancelled.
    const body = (i: number) => JSON.parse(executions[i].response!.stream!.toString());
    const [provider, requester, quote, booking] = [body(0).data.netid, body(1).data.netid, body(9), body(10)];
    expect(quote.fees[0].code).toBe(body(6).data.slug);
    expect(booking.totalAmount).toBe(quote.fees[0].fee);
    const read = body(11).data;
    expect([read.fromConextId, read.toConextId]).toEqual([requester, provider]);
    expect(residue()).toMatchObject({ cars: [], bookings: [] });
  }, 90_000);

  test("newman runs the WHOLE collection against a production service: every request answers as its test expects (#45)", async () => {
    const requests = all(collection.item);
    // The clean-up and the sign-outs run last, each release right after a fresh sign-in of its kind.
    const last = collection.item.at(-1);
    expect(last.name).toBe("Clean up and sign out (runs last)");
    const paths = all(last.item).map((r: any) => `${r.request.method} ${r.request.url.path.join("/")}`);
    // The run's bookings are cancelled before its car is deleted (a booking holds it).
    expect(paths).toEqual([
      "POST Platform.svc/cancelTripByTransactionId/:transactionId/V1",
      "GET Platform.svc/cancelTripByResNo/:netid/:resNo/V1",
      "POST Platform.svc/sendTrip/V1",
      "POST Platform.svc/cancelTripByResNo/:netid/:resNo/V1",
      "DELETE api/fleet/:slug",
      "POST api/token",
      "POST api/token/release",
      "POST Platform.svc/getToken2",
      "GET Platform.svc/releaseToken/V1",
      "POST Platform.svc/getToken2",
      "POST Platform.svc/releaseToken/V1",
    ]);
    const releases = requests.filter((r) => /(token\/release|releaseToken)/.test(r.request.url.path.join("/")));
    expect(releases.every((r) => all(last.item).includes(r))).toBe(true);

    const before = residue().companies;
    const summary = await run(collection);
    expect(failuresOf(summary)).toEqual([]);
    const executions = ownExecutions(summary);
    // Every request ran but the event stream (skipped in runs: it never ends), and none was refused its credential.
    expect(executions.length).toBe(requests.length - 1);
    expect(executions.filter((e) => e.response?.code === 401).map((e) => e.item.name)).toEqual([]);
    // Only the errors shown on purpose are 4xx.
    expect(executions.filter((e) => (e.response?.code ?? 0) >= 400).length).toBe(6);
    // The airport trip (docs/flights.md): every step answered as it shows, its own checks of the ETA, the arrival,
    // the refused NO_SHOW, the moved pickup and the WAITING lines passed (failuresOf is empty), and it ends CLOSE'd.
    const airport = collection.item.find((f: any) => f.name === "Airport trip: flight, arrival, waiting");
    const names = new Set(all(airport.item).map((r: any) => r.name));
    const airportRun = executions.filter((e) => names.has(e.item.name)).map((e) => `${e.item.name.split(".")[0]} → ${e.response?.code}`);
    expect(airportRun).toEqual([...Array(16).keys()].map((i) => `${i + 1} → ${i === 9 ? 409 : 200}`));
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(3 * requests.length);

    // Nothing of the run is offered or booked any more: the run's two companies stay, with no car and no live booking.
    const after = residue();
    expect(after.companies.filter((c) => !before.includes(c))).toHaveLength(2);
    expect(after).toMatchObject({ cars: [], bookings: [] });
    // So a booking company registered afterwards finds nothing at JFK (a production service with no fleet).
    const later = await registerCompany(server, "LATER-CO", "CO");
    const quote = await postJson(
      `${server.base}/api/quotes`,
      { passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time: "2027-01-15T08:00:00" } } },
      { authorization: `Bearer ${later.jwt}` },
    );
    expect(quote.status).toBe(200);
    expect(quote.body.data.options).toEqual([]);
  }, 240_000);

  test("a request that answers 4xx where the collection expects 2xx fails the run", async () => {
    // The core flow (for the tokens and the car), then a read of a car that does not exist.
    const read = all(collection.item).find((r) => r.request.method === "GET" && r.request.url.path.join("/") === "api/fleet/:slug");
    const broken = structuredClone(read);
    broken.request.url.variable = broken.request.url.variable.map((v: any) => (v.key === "slug" ? { ...v, value: "no-such-car" } : v));
    const summary = await run({ ...collection, item: [collection.item[0], { name: "Broken", item: [broken] }] });
    expect(ownExecutions(summary).at(-1)!.response!.code).toBe(404);
    expect(failuresOf(summary)).toEqual([expect.stringMatching(/^Get one of your vehicles: .*expected 404 to be within 200\.\.299/)]);
  }, 90_000);
});
