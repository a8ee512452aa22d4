import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";

// Every route of the OpenAPI document that takes one kind of credential only, given the other kind: 401
// WRONG_CREDENTIAL_KIND, saying which credential the route takes and where to get it.
let h: Harness;
let coreToken: string;
let platformToken: string;
let netid: string;
let routes: Array<{ method: string; path: string; takes: "core" | "platform" }>;

const CORE_HINT = /core token \(a JWT\) as Authorization: Bearer <token>, from POST \/api\/token/;
const PLATFORM_HINT = /platform token in the header token, from POST \/Platform\.svc\/getToken2/;

beforeAll(async () => {
  h = createHarness();
  const company = await h.registerCompany();
  netid = company.netid;
  coreToken = await h.coreToken(company.netid, company.password);
  platformToken = await h.platformToken(company.netid, company.password);
  const doc = (await h.request("GET", "/docs/json")).body;
  routes = [];
  for (const [path, ops] of Object.entries<Record<string, { security?: Array<Record<string, unknown>> }>>(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const kinds = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (path === "/metrics" || kinds.length !== 1) continue;
      routes.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "X1"), takes: kinds[0] === "bearer" ? "core" : "platform" });
    }
  }
});

const send = (method: string, path: string, headers: Record<string, string>) =>
  h.request(method, path, { headers, ...(method === "GET" || method === "DELETE" ? {} : { body: bodyFor(path) }) });

/** A body that passes the route's schema (some routes check it before the credential). */
function bodyFor(path: string): unknown {
  if (path === "/api/fleet/import") return [];
  if (path.includes("/providerUpdateStatusBy")) return { status: "CONFIRMED" };
  return {};
}

describe("a route given the other kind of credential", () => {
  test("the document has routes of both kinds", () => {
    expect(routes.filter((r) => r.takes === "core").length).toBeGreaterThan(10);
    expect(routes.filter((r) => r.takes === "platform").length).toBeGreaterThan(10);
  });

  test("a bearer-only route given the platform token (as the token header, or as a bearer) says it takes the core JWT", async () => {
    for (const { method, path } of routes.filter((r) => r.takes === "core")) {
      for (const headers of [{ token: platformToken }, { authorization: `Bearer ${platformToken}` }] as Record<string, string>[]) {
        const res = await send(method, path, headers);
        expect({ method, path, headers: Object.keys(headers), status: res.status, code: res.body.code }).toEqual({
          method, path, headers: Object.keys(headers), status: 401, code: "WRONG_CREDENTIAL_KIND",
        });
        expect(res.body.success).toBe(false);
        expect(res.body.message).toMatch(CORE_HINT);
      }
    }
  });

  test("a platform operation given the core JWT (as a bearer, or in the token header) says it takes the platform token", async () => {
    for (const { method, path } of routes.filter((r) => r.takes === "platform")) {
      for (const headers of [{ authorization: `Bearer ${coreToken}` }, { token: coreToken }] as Record<string, string>[]) {
        const res = await send(method, path, headers);
        expect({ method, path, headers: Object.keys(headers), status: res.status, code: res.body.code }).toEqual({
          method, path, headers: Object.keys(headers), status: 401, code: "WRONG_CREDENTIAL_KIND",
        });
        expect(res.body.message).toMatch(PLATFORM_HINT);
      }
    }
  });

  test("the right kind still works, and a bad credential of the right kind stays INVALID_TOKEN / MISSING_TOKEN", async () => {
    expect((await h.request("GET", "/api/fleet", { headers: { authorization: `Bearer ${coreToken}` } })).status).toBe(200);
    expect((await h.request("GET", "/api/fleet", { headers: { authorization: "Bearer not-a-token" } })).body.code).toBe("INVALID_TOKEN");
    expect((await h.request("GET", "/api/fleet")).body.code).toBe("MISSING_TOKEN");
    expect((await h.request("GET", "/Platform.svc/getReservationByTransactionId/X1/V1", { headers: { token: "not-a-token" } })).body.code).toBe("INVALID_TOKEN");
    expect((await h.request("GET", "/Platform.svc/getReservationByTransactionId/X1/V1")).body.code).toBe("MISSING_TOKEN");
    // A released platform token is invalid, not of the wrong kind.
    const released = await h.platformToken((await h.registerCompany()).netid, "a long unguessable passphrase").catch(() => undefined);
    if (released) {
      await h.request("POST", "/Platform.svc/releaseToken/V1", { headers: { token: released } });
      expect((await h.request("GET", "/api/fleet", { headers: { authorization: `Bearer ${released}` } })).body.code).toBe("INVALID_TOKEN");
    }
  });

  test("routes that take either kind accept both", async () => {
    for (const headers of [{ authorization: `Bearer ${coreToken}` }, { token: platformToken }] as Record<string, string>[]) {
      expect((await h.request("GET", `/api/partner/${netid}`, { headers })).status).toBe(200);
      expect((await h.request("GET", "/api/reservation/01a214b1-0c2e-7243-9073-ab6cd3b27b2a", { headers })).body.code).toBe("BOOKING_NOT_FOUND");
    }
  });
});
