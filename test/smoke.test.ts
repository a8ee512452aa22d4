import { describe, expect, test } from "bun:test";
import { createHarness } from "./support/harness";

describe("health", () => {
  test("healthz and readyz answer 200 with a request id", async () => {
    const h = createHarness();
    const live = await h.request("GET", "/healthz");
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ success: true, status: "ok" });
    expect(live.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const ready = await h.request("GET", "/readyz");
    expect(ready.body).toEqual({ success: true, status: "ready" });
  });
});
