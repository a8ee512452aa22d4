import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { company, vehicle } from "../../../support/fleet";
import { importFleet } from "../../../../domain/usecases/manage-fleet";

let h: Harness;
afterEach(() => h?.close());

describe("fleet quota per plan", () => {
  test("FREE keeps 2,000 entries: an import past it is 403 FLEET_QUOTA_EXCEEDED and saves nothing; PROFESSIONAL takes more", async () => {
    h = createHarness();
    const op = await company(h);
    const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => vehicle({ name: `Sedan ${from + i}` }));
    expect((await h.request("POST", "/api/fleet/import", { body: rows(1990), headers: op.auth })).status).toBe(200);
    const over = await h.request("POST", "/api/fleet/import", { body: rows(20, 2000), headers: op.auth });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ success: false, code: "FLEET_QUOTA_EXCEEDED" });
    expect(over.body.message).toContain("2,000");
    const count = async () => (await h.request("GET", "/api/fleet?limit=1", { headers: op.auth })).body.data.total;
    expect(await count()).toBe(1990);
    // Exactly up to the quota is allowed; one more single add is not.
    expect((await h.request("POST", "/api/fleet/import", { body: rows(10, 3000), headers: op.auth })).status).toBe(200);
    const single = await h.request("POST", "/api/fleet", { body: vehicle({ name: "One Too Many" }), headers: op.auth });
    expect(single.status).toBe(403);
    expect(single.body.code).toBe("FLEET_QUOTA_EXCEEDED");
    expect(await count()).toBe(2000);
    await h.services.companies.setPlan(op.netid, "PROFESSIONAL");
    expect((await h.request("POST", "/api/fleet", { body: vehicle({ name: "Room Now" }), headers: op.auth })).status).toBe(200);
  }, 30_000);

  test("simultaneous imports cannot pass the quota together: the count is checked in the insert's transaction", async () => {
    h = createHarness();
    const op = await company(h);
    const rows = (n: number, from: number) => Array.from({ length: n }, (_, i) => vehicle({ name: `Van ${from + i}` }));
    // Started together through the use case: all three pass the quick check before any of them inserts.
    const outcomes = await Promise.allSettled([0, 1, 2].map((k) => importFleet(h.services.manageFleet, op.netid, rows(800, k * 1000))));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "FLEET_QUOTA_EXCEEDED" });
    expect(refused.reason.message).toContain("you have 1,600 and this would add 800");
    expect((await h.request("GET", "/api/fleet?limit=1", { headers: op.auth })).body.data.total).toBe(1600);
  }, 30_000);
});
