import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { answerChecker } from "../../support/openapi-answers";

// The OpenAPI document says what the service answers (docs/security.md#conformance): the findings of the conformance
// run (test/reliability/conformance.test.ts), each pinned here through HTTP.
let h: Harness;
afterEach(() => h?.close());

const JSON_STRING_ANSWERS = [
  ["post", "/Platform.svc/getToken2"],
  ["get", "/Platform.svc/releaseToken/V1"],
  ["post", "/Platform.svc/releaseToken/V1"],
  ["get", "/Platform.svc/retryTransaction/{transactionId}/V1"],
] as const;

describe("the OpenAPI document describes the answers as they are sent", () => {
  test("getToken2, releaseToken and retryTransaction answer a JSON string, documented as application/json", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    for (const [method, path] of JSON_STRING_ANSWERS) {
      const ok = doc.paths[path][method].responses["200"];
      expect([path, Object.keys(ok.content)]).toEqual([path, ["application/json"]]);
      expect(ok.content["application/json"].schema.type).toBe("string");
    }
    // As sent: the token and the release's "OK" are JSON strings with Content-Type application/json.
    const company = await h.registerCompany();
    const token = await h.request("POST", "/Platform.svc/getToken2", { body: { uid: company.netid, pw: company.password } });
    const release = await h.request("POST", "/Platform.svc/releaseToken/V1", { headers: { token: token.body } });
    const checker = answerChecker(doc);
    for (const [path, res] of [["/Platform.svc/getToken2", token], ["/Platform.svc/releaseToken/V1", release]] as const) {
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(checker.problems({ method: "POST", path, status: res.status, contentType: res.headers.get("content-type") ?? "", body: res.text })).toEqual([]);
    }
    expect(release.body).toBe("OK");
  });

  test("an answer's integer is a JSON integer: no digit-string alternative (format integer) where the service sends", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    const sent = JSON.stringify([Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.responses)), doc.webhooks]);
    expect(sent).not.toContain('"format":"integer"');
    const page = doc.paths["/api/fleet"].get.responses["200"].content["application/json"].schema.properties.data.properties;
    expect(page.total).toEqual({ type: "integer", description: "All matches, not just this page" });
    const integration = doc.paths["/api/company/integration"].get.responses["200"].content["application/json"].schema.properties.data.properties;
    expect(integration.serviceRadiusKm.type).toBe("integer");
    // An integer or null stays that.
    const record = doc.paths["/api/providers/{netid}/record"].get.responses["200"].content["application/json"].schema.properties.data.properties;
    expect(record.medianAcceptSeconds.anyOf).toEqual([{ type: "integer" }, { type: "null" }]);
  });

  test("every operation lists the edge's answers: 400 for a NUL in the URL, and 413 and 415 where a body may come", async () => {
    h = createHarness({ maxBodyBytes: 1000 });
    const doc = (await h.request("GET", "/docs/json")).body;
    const missing: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths))
      for (const [method, op] of Object.entries(operations)) {
        const wanted = ["post", "put", "patch", "delete"].includes(method) ? ["400", "413", "415"] : ["400"];
        for (const status of wanted) if (!op.responses[status]) missing.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    expect(missing).toEqual([]);
    // As answered, by routes that listed none of them before: each answer is one the document describes.
    const company = await h.registerCompany();
    const auth = { authorization: `Bearer ${await h.coreToken(company.netid, company.password)}` };
    const checker = answerChecker(doc);
    const asked = [
      ["GET", "/api/company?x=%00", { headers: auth }, 400],
      ["GET", "/healthz?x=%00", {}, 400],
      ["POST", "/api/token/release", { headers: { ...auth, "content-type": "text/plain" }, raw: "hello" }, 415],
      ["POST", "/api/token", { headers: { "content-type": "text/plain" }, raw: "uid=x" }, 415],
      ["POST", "/api/token", { raw: JSON.stringify({ uid: "x".repeat(2000), pw: "y" }), headers: { "content-type": "application/json" } }, 413],
      ["DELETE", "/api/fleet/nothing", { headers: { ...auth, "content-type": "application/json" }, raw: "{not json" }, 400],
    ] as const;
    for (const [method, path, opts, status] of asked) {
      const res = await h.request(method, path, opts);
      expect([path, res.status]).toEqual([path, status]);
      const answer = { method, path: path.split("?")[0]!, status: res.status, contentType: res.headers.get("content-type") ?? "", body: res.text };
      expect(checker.problems(answer)).toEqual([]);
    }
  });
});
