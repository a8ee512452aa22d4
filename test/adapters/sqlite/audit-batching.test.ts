import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";

let h: Harness;
afterEach(() => h?.close());

describe("audit log under a flood of bad credentials", () => {
  test("500 denied requests are one commit and one row with a count; other events are written at once", async () => {
    h = createHarness();
    const sqlite = h.db.$client;
    const auditRows = () => sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_events").get()!.n;
    const before = auditRows();
    const denied = await Promise.all(Array.from({ length: 500 }, () => h.request("GET", "/api/company/integration", { headers: { authorization: "Bearer forged.token.value" } })));
    expect(denied.every((r) => r.status === 401)).toBe(true);
    // Held, not yet written: no write (and no fsync) per 401.
    expect(auditRows()).toBe(before);
    await Bun.sleep(300);
    const rows = sqlite.query<{ type: string; detail: string }, []>("SELECT type, detail FROM audit_events WHERE type = 'access.denied'").all();
    expect(rows).toHaveLength(1);
    expect(rows[0].detail).toEndWith("(×500)");
    // A registration is recorded at once.
    await h.registerCompany();
    expect(sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_events WHERE type = 'company.registered'").get()!.n).toBe(1);
  });
});
