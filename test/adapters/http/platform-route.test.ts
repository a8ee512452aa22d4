import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";

let h: Harness;
afterEach(() => h?.close());

const base = (path: string) => path.replace(/\/[Vv]1$/, "");
const toOpenApi = (path: string) => path.replace(/:(\w+)/g, "{$1}");

describe("platformRoute: every platform operation under its bare, /V1 and /v1 path", () => {
  test("each operation answers on all three spellings, and the OpenAPI document shows exactly one of them", async () => {
    h = createHarness();
    const routes = h.app.routes.filter((r) => r.path.startsWith("/Platform.svc/"));
    const spellings = new Map<string, Set<string>>();
    for (const r of routes) {
      const key = `${r.method} ${base(r.path)}`;
      if (!spellings.has(key)) spellings.set(key, new Set());
      spellings.get(key)!.add(r.path.slice(base(r.path).length));
    }
    expect(spellings.size).toBe(16);
    for (const [key, suffixes] of spellings) expect([key, [...suffixes].sort()]).toEqual([key, ["", "/V1", "/v1"]]);

    const doc = (await h.request("GET", "/docs/json")).body;
    for (const key of spellings.keys()) {
      const [method, path] = key.split(" ");
      const documented = ["", "/V1", "/v1"].filter((suffix) => doc.paths[toOpenApi(path + suffix)]?.[method.toLowerCase()]);
      expect([key, documented.length]).toEqual([key, 1]);
    }
  });

  test("the three spellings are the same operation: a token from the bare path works on /V1 and /v1", async () => {
    h = createHarness();
    const c = await h.registerCompany();
    const token = await h.platformToken(c.netid, c.password);
    for (const suffix of ["", "/V1", "/v1"]) {
      const res = await h.request("GET", `/Platform.svc/getReservationByTransactionId/0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20${suffix}`, { headers: { token } });
      expect([suffix, res.status, res.body.code]).toEqual([suffix, 404, "BOOKING_NOT_FOUND"]);
    }
    const released = await h.request("POST", "/Platform.svc/releaseToken/v1", { headers: { token } });
    expect(released.body).toBe("OK");
    const after = await h.request("GET", "/Platform.svc/getReservationByTransactionId/0194f1c2-7a1e-7c3b-9a51-2f6f4b8e1d20/V1", { headers: { token } });
    expect(after.status).toBe(401);
  });
});
