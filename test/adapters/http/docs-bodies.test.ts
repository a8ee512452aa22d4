import { expect, test } from "bun:test";
import { createHarness } from "../../support/harness";

test("the OpenAPI document gives every operation that takes a body its JSON schema (the edge's own parser hid them)", async () => {
  const h = createHarness();
  const spec = (await h.request("GET", "/docs/json")).body;
  const withBody = Object.entries<any>(spec.paths).flatMap(([path, ops]) => Object.entries<any>(ops).filter(([, op]) => op.requestBody).map(([method, op]) => ({ path, method, op })));
  expect(withBody.map((o) => `${o.method} ${o.path}`)).toEqual(
    expect.arrayContaining(["post /api/company/register", "post /api/token", "put /api/company/integration", "post /api/fleet", "post /Platform.svc/sendTrip/V1", "post /Platform.svc/getToken2"]),
  );
  for (const { op } of withBody) expect(op.requestBody.content["application/json"].schema).toBeDefined();
  expect(spec.paths["/Platform.svc/sendTrip/V1"].post.requestBody.content["application/json"].schema.properties.affiliateReservation).toBeDefined();
  // An empty body is still a 400 naming the body, not a parse failure of the framework.
  const empty = await h.request("POST", "/api/token", { raw: "", headers: { "content-type": "application/json" } });
  expect(empty.status).toBe(400);
  expect(empty.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
  h.close();
});
