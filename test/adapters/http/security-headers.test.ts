import { afterAll, describe, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";
import { parties, regularTrip } from "../../support/trips";

const h = createHarness();
afterAll(() => h.close());

const noStore = (res: { headers: Headers }, what: string) => {
  expect([what, res.headers.get("cache-control")]).toEqual([what, "no-store"]);
  expect([what, res.headers.get("x-content-type-options")]).toEqual([what, "nosniff"]);
};

describe("API answers are never cached or sniffed", () => {
  test("core and platform answers, successes and errors alike, carry Cache-Control: no-store and nosniff", async () => {
    const { requester, provider } = await parties(h);
    const sent = await h.request("POST", "/Platform.svc/sendTrip/V1", { headers: { token: requester.token }, body: regularTrip(requester.netid, provider.netid) });
    noStore(sent, "sendTrip");
    const id = sent.body.transactionId;
    noStore(await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } }), "booking lookup (passenger data)");
    noStore(await h.request("POST", "/api/token", { body: { uid: requester.netid, pw: "wrong password" } }), "401");
    noStore(await h.request("POST", "/api/token", { body: {} }), "400");
    noStore(await h.request("GET", "/api/no-such-route"), "404 route");
    noStore(await h.request("POST", "/Platform.svc/getToken2", { body: { uid: provider.netid, pw: "correct horse battery staple" } }), "getToken2 (a JSON string answer)");
    noStore(await h.request("GET", "/api/search/fleet?airports=jfk", { headers: { authorization: `Bearer ${requester.jwt}` } }), "fleet search");
    noStore(await h.request("GET", "/healthz"), "healthz");
  });
});

describe("the docs UI", () => {
  test("/docs has a Content-Security-Policy without inline scripts, refuses framing, and its start-up script is a file of its own", async () => {
    const res = await h.request("GET", "/docs");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    // Every script is a file from this origin: none inline, none from a CDN.
    const scripts = [...res.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) {
      expect(inline.trim()).toBe("");
      expect(attributes).toMatch(/src="\/docs\/assets\//);
      const asset = await h.request("GET", /src="([^"]+)"/.exec(attributes)![1]);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-type")).toContain("javascript");
    }
    expect(res.text).toContain('href="/docs/assets/swagger-ui.css"');
  });

  test("the console keeps its own caching and policy", async () => {
    const res = await h.request("GET", "/console");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const asset = await h.request("GET", "/docs/assets/swagger-ui.css");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=86400");
  });

  test("the OpenAPI document names the headers API answers carry", async () => {
    const spec = (await h.request("GET", "/docs/json")).body;
    expect(spec.info.description).toContain("Cache-Control: no-store");
    expect(spec.info.description).toContain("X-Content-Type-Options: nosniff");
  });
});
