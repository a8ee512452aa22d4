import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness, type Harness } from "../../support/harness";
import { ERROR_CODES } from "../../../adapters/http/error-codes";

let h: Harness;
afterEach(() => h?.close());

const ROOT = join(import.meta.dir, "../../..");
const REDOCLY = join(ROOT, "node_modules/@redocly/cli/bin/cli.js");

/** The locally installed redocly's lint (recommended rules) on a file, offline: no telemetry, no update check. */
function redoclyLint(file: string): { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }> } {
  const run = Bun.spawnSync([process.execPath, REDOCLY, "lint", file, "--format=json"], {
    cwd: join(file, ".."),
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1", CI: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = run.stdout.toString();
  const json = out.slice(out.indexOf("{"));
  if (!json) throw new Error(`redocly printed no report (exit ${run.exitCode}): ${run.stderr.toString()}`);
  return JSON.parse(json);
}

describe("the served OpenAPI document", () => {
  test("passes redocly lint (recommended rules) with 0 errors", async () => {
    h = createHarness();
    const res = await h.request("GET", "/docs/json");
    expect(res.status).toBe(200);
    const dir = mkdtempSync(join(tmpdir(), "tripswitch-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, res.text);
      const report = redoclyLint(file);
      const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("is OpenAPI 3.1 with servers, no 3.0 `nullable` nor Elysia's `hide`, and the credential each operation wants", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    expect(doc.openapi).toStartWith("3.1");
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(JSON.stringify(doc)).not.toMatch(/"nullable":|"hide":/);
    // No credential unless an operation names one.
    expect(doc.security).toEqual([]);
    expect(doc.paths["/api/user/check"].get.security).toBeUndefined();
    for (const path of ["/healthz", "/readyz", "/api/company/register", "/api/token", "/api/trip-states"])
      for (const op of Object.values<{ security?: unknown[] }>(doc.paths[path])) expect(op.security).toEqual([]);
    expect(doc.paths["/Platform.svc/getToken2"].post.security).toEqual([]);
    expect(doc.paths["/Platform.svc/sendTrip/V1"].post.security).toEqual([{ platformToken: [] }]);
    expect(doc.paths["/api/fleet"].get.security).toEqual([{ bearer: [] }]);
    // The other spellings of a platform path answer, but only one is documented.
    expect(doc.paths["/Platform.svc/sendTrip"]).toBeUndefined();
    expect(doc.paths["/Platform.svc/sendTrip/v1"]).toBeUndefined();
  });

  test("documents what the service POSTs out: trips to a provider's endpoint and booking events to a webhook", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    const trip = doc.webhooks.tripDelivery.post;
    const tripBody = trip.requestBody.content["application/json"].schema;
    expect(Object.keys(tripBody.properties)).toEqual(expect.arrayContaining(["transactionId", "eventId", "status", "affiliateReservation", "passengers", "locations"]));
    expect(trip.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["X-TripSwitch-Event-Id", "X-TripSwitch-Event-Type", "Authorization"]));
    expect(Object.keys(trip.responses["2XX"].content["application/json"].schema.properties)).toEqual(expect.arrayContaining(["reservationId", "totalAmount", "fees", "success", "message"]));
    const event = doc.webhooks.bookingEvent.post;
    const [events, gnet] = event.requestBody.content["application/json"].schema.anyOf;
    expect(Object.keys(events.properties)).toEqual([
      "eventId", "type", "createdAt", "from", "to", "cause", "reason", "priceChange", "termsChanged",
      "reservationId", "requesterResNo", "providerResNo", "pickupAt", "assignBy", "minutesLeft", "data",
    ]);
    expect(Object.keys(gnet.properties)).toEqual(expect.arrayContaining(["transactionId", "status", "affiliateReservation", "vehicle", "location", "chauffeur"]));
    expect(event.parameters.map((p: { name: string }) => p.name)).toContain("X-TripSwitch-Signature");
  });

  test("carries the error-code catalogue: every code the source raises, each with its status and meaning", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    expect(doc["x-error-codes"]).toEqual(ERROR_CODES.map((e) => ({ ...e })));
    for (const e of ERROR_CODES) expect(doc.info.description).toContain(`| \`${e.code}\` | ${e.status} |`);

    const listed = new Set(ERROR_CODES.map((e) => e.code));
    const raised = new Set<string>();
    const source = sourceFiles(["domain", "adapters", "src"]).map((f) => readFileSync(f, "utf8"));
    for (const text of source) {
      // new XError(message, "CODE" …) and new HttpError(status, "CODE", …)
      for (const m of text.matchAll(/new (?:Unauthorized|Forbidden|NotFound|Conflict|TooManyRequests)Error\([^;]*?,\s*"([A-Z][A-Z_]+)"\s*[,)]/g)) raised.add(m[1]);
      for (const m of text.matchAll(/new HttpError\(\d{3},\s*"([A-Z][A-Z_]+)"/g)) raised.add(m[1]);
    }
    // Envelopes built by hand at the edge (and the storage codes it maps).
    const edge = readFileSync(join(ROOT, "adapters/http/errors.ts"), "utf8");
    for (const m of edge.matchAll(/code: "([A-Z][A-Z_]+)"/g)) raised.add(m[1]);
    expect(raised.size).toBeGreaterThan(30);
    expect([...raised].filter((c) => !listed.has(c)).sort()).toEqual([]);
    // And nothing is listed that the source no longer answers.
    const everything = source.join("\n");
    expect([...listed].filter((c) => !everything.includes(`"${c}"`)).sort()).toEqual([]);
  });
});


function sourceFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) out.push(path);
    }
  };
  for (const d of dirs) walk(join(ROOT, d));
  return out;
}
