import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import newman, { type NewmanRunSummary } from "newman";
import { startServer, tempDir, type RunningServer } from "../support/process";

// The Postman collection the service serves, run by newman (Postman's own runner) against a fresh service with the
// demo data: its "Core flow" folder registers a company, takes both tokens, searches, sends a quote, books it and
// reads the booking, each step checked by the collection's own test scripts.
let server: RunningServer;
let dir: string;
let collection: any;

beforeAll(async () => {
  dir = tempDir("tripswitch-postman-");
  server = await startServer({ DB_PATH: join(dir, "postman.sqlite"), DEMO_DATA: "1" }, { timeoutMs: 60_000 });
  const res = await fetch(`${server.base}/docs/postman.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  collection = await res.json();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function runFolder(folder?: string): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) =>
    newman.run({ collection, ...(folder ? { folder } : {}), reporters: [], timeoutRequest: 15_000 }, (error: Error | null, summary: NewmanRunSummary) => (error ? reject(error) : resolve(summary))),
  );
}

describe("the served Postman collection", () => {
  test("is a v2.1 collection of every operation, pointed at the host it was asked from, with both token variables", () => {
    expect(collection.info.schema).toContain("v2.1.0");
    const variables = Object.fromEntries(collection.variable.map((v: { key: string; value: string }) => [v.key, v.value]));
    expect(variables.baseUrl).toBe(server.base);
    expect(Object.keys(variables)).toEqual(expect.arrayContaining(["uid", "pw", "coreToken", "platformToken"]));
    const all = (items: any[]): any[] => items.flatMap((i) => (i.item ? all(i.item) : [i]));
    const requests = all(collection.item);
    expect(requests.length).toBeGreaterThan(40);
    const byPath = (method: string, path: string) => requests.filter((i) => i.request.method === method && i.request.url.path.join("/") === path);
    // Both tokens are captured by test scripts, and every protected request takes its token from the variables.
    expect(byPath("POST", "api/token").every((i) => i.event.some((e: any) => e.script.exec.join("\n").includes('set("coreToken"')))).toBe(true);
    expect(byPath("POST", "Platform.svc/getToken2").every((i) => i.event.some((e: any) => e.script.exec.join("\n").includes('set("platformToken"')))).toBe(true);
    for (const r of requests.filter((i) => i.request.auth)) {
      const value = JSON.stringify(r.request.auth);
      expect(value.includes("{{coreToken}}") || value.includes("{{platformToken}}")).toBe(true);
    }
    expect(JSON.stringify(byPath("POST", "Platform.svc/sendTrip/V1")[0].request.auth)).toContain("{{platformToken}}");
    expect(JSON.stringify(byPath("GET", "api/search/fleet")[0].request.auth)).toContain("{{coreToken}}");
  });

  test("newman runs its core flow: register, both tokens, search, a quote, the booking, reading it, the FX table", async () => {
    const summary = await runFolder("Core flow");
    const failures = summary.run.failures.map((f: NewmanRunSummary["run"]["failures"][number]) => `${f.source?.name}: ${f.error?.message}`);
    expect(failures).toEqual([]);
    const steps = summary.run.executions.map((e) => `${e.item.name} → ${e.response?.code}`);
    expect(steps).toEqual([
      "1. Register a company → 200",
      "2. Get a core token → 200",
      "3. Get a platform token → 200",
      "4. Search fleets around JFK → 200",
      "4a. Search fleets around a city (Boston, US) → 200",
      "5. Send a quote request → 200",
      "6. Book the first option → 200",
      "7. Read the booking → 200",
      "8. The FX table network quotes convert with → 200",
    ]);
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(8);
    expect(summary.run.stats.assertions.failed).toBe(0);
    // The tokens it captured are the two kinds.
    // The tokens its scripts captured went out as the two kinds: the JWT as a bearer, the platform token as `token`.
    const sent = summary.run.executions.map((e) => e.request.headers.toObject());
    const coreToken = String(sent[3].authorization).replace(/^Bearer /, "");
    // (Executions: 0 register, 1–2 the tokens, 3–4 the searches, 5 the quote, 6 the booking, 7 the read.)
    const platformToken = String(sent[5].token);
    expect(coreToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(platformToken).toMatch(/^\S{20,}$/);
    expect(platformToken).not.toBe(coreToken);
    expect(sent[5].authorization).toBeUndefined();
    expect(String(sent[7].authorization)).toBe(`Bearer ${coreToken}`);
    const quote = JSON.parse(summary.run.executions[5].response!.stream.toString());
    const uid = JSON.parse(summary.run.executions[0].response!.stream.toString()).data.netid;
    // The booking it made is the registered company's, at the quoted price.
    const booking = await fetch(`${server.base}/api/reservation/${quote.transactionId}`, { headers: { authorization: `Bearer ${coreToken}` } }).then((r) => r.json());
    expect(booking.data.fromConextId).toBe(uid);
    expect(booking.data.tripPacket.totalAmount).toBe(quote.fees[0].fee);
  }, 60_000);

  test("newman runs the WHOLE collection: every request has a test, none is signed out by another, and all pass (#38)", async () => {
    const all = (items: any[]): any[] => items.flatMap((i) => (i.item ? all(i.item) : [i]));
    const requests = all(collection.item);
    const untested = requests.filter((r) => !(r.event ?? []).some((e: any) => e.listen === "test" && e.script.exec.join("\n").includes("pm.test(")));
    expect(untested.map((r) => r.name)).toEqual([]);
    // The requests that release a credential run last.
    const last = collection.item.at(-1);
    expect(last.name).toBe("Sign out (runs last)");
    const paths = all(last.item).map((r: any) => r.request.url.path.join("/"));
    expect(paths).toContain("api/token/release");
    expect(paths).toContain("Platform.svc/releaseToken/V1");
    // No release elsewhere, and each one right after a fresh sign-in of its kind.
    const releases = requests.filter((r) => /(token\/release|releaseToken)/.test(r.request.url.path.join("/")));
    expect(releases.every((r) => all(last.item).includes(r))).toBe(true);
    paths.forEach((p: string, i: number) => {
      if (/releaseToken/.test(p)) expect(paths[i - 1]).toBe("Platform.svc/getToken2");
      if (p === "api/token/release") expect(paths[i - 1]).toBe("api/token");
    });
    const summary = await runFolder();
    const failures = summary.run.failures.map((f: NewmanRunSummary["run"]["failures"][number]) => `${f.source?.name}: ${f.error?.message}`);
    expect(failures).toEqual([]);
    const statuses = summary.run.executions.map((e) => e.response?.code);
    expect(statuses.filter((c) => c === 401).length).toBe(0);
    // Every request ran but the event stream (skipped in runs: it never ends).
    expect((summary.run.stats as any).requests.total).toBe(requests.length - 1);
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(2 * requests.length);
  }, 240_000);
});
