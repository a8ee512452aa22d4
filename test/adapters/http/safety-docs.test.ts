import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";

let h: Harness;
afterEach(() => h?.close());

describe("OpenAPI documents the safety errors", () => {
  test("quota, throttling, idempotency, storage and outbound-URL answers are described where they happen", async () => {
    h = createHarness();
    const doc = (await h.request("GET", "/docs/json")).body;
    expect(doc.info.description).toContain("STORAGE_FULL");
    expect(doc.info.description).toContain("DATABASE_BUSY");
    expect(doc.info.description).toContain("IDEMPOTENCY_IN_PROGRESS");
    for (const path of ["/api/fleet", "/api/fleet/import"]) {
      expect(Object.keys(doc.paths[path].post.responses)).toContain("403");
      expect(doc.paths[path].post.description).toContain("FLEET_QUOTA_EXCEEDED");
    }
    expect(Object.keys(doc.paths["/api/company/register"].post.responses)).toContain("429");
    expect(doc.paths["/api/company/integration"].put.description).toContain("169.254.169.254");
    expect(JSON.stringify(doc.paths["/Platform.svc/sendTrip/V1"].post.parameters)).toContain("IDEMPOTENCY_IN_PROGRESS");
  });
});
