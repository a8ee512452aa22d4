import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { postJson, runCli, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";

describe("audit trail", () => {
  test("records logins, failures, releases, registrations, plan and integration changes and denied access; operators query it", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
    try {
      await postJson(`${server.base}/api/company/register`, { name: "Audit Cars", netid: "AUDIT", mainEmail: "a@audit.example", password, confirmPassword: password, mainPhone: "+12125550155", coType: "IO" });
      expect((await postJson(`${server.base}/api/token`, { uid: "AUDIT", pw: "not the password" })).status).toBe(401);
      const core = await postJson(`${server.base}/api/token`, { uid: "AUDIT", pw: password });
      const platform = await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "AUDIT", pw: password });
      expect((await fetch(`${server.base}/Platform.svc/releaseToken`, { headers: { token: platform.body } })).status).toBe(200);
      const put = await fetch(`${server.base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${core.body.token}`, "content-type": "application/json" }, body: JSON.stringify({ luggage: "native" }) });
      expect(put.status).toBe(200);
      expect((await fetch(`${server.base}/api/company/integration`, { headers: { authorization: "Bearer forged.token.value" } })).status).toBe(401);
      expect((await runCli(["company", "set-plan", "AUDIT", "PROFESSIONAL"], { DB_PATH: dbPath })).code).toBe(0);

      const out = await runCli(["audit"], { DB_PATH: dbPath });
      expect(out.code).toBe(0);
      const events = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const types = events.map((e) => e.type);
      for (const t of ["company.registered", "login.failed", "login.succeeded", "token.released", "integration.changed", "access.denied", "plan.changed"]) expect(types).toContain(t);
      expect(out.stdout).not.toContain(password);
      expect(out.stdout).not.toContain(platform.body);
      expect(out.stdout).not.toContain(core.body.token);

      const failed = await runCli(["audit", "--type", "login.failed", "--netid", "AUDIT"], { DB_PATH: dbPath });
      const lines = failed.stdout.trim().split("\n").map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ type: "login.failed", uid: "AUDIT", netid: "AUDIT" });
      expect((await runCli(["audit", "--limit", "0"], { DB_PATH: dbPath })).code).toBe(2);
      const latest = Math.max(...events.map((e) => e.at));
      const since = await runCli(["audit", "--since", String(latest)], { DB_PATH: dbPath });
      const recent = since.stdout.trim().split("\n").map((l) => JSON.parse(l));
      expect(recent.length).toBeGreaterThan(0);
      expect(recent.every((e) => e.at >= latest)).toBe(true);
      expect((await runCli(["audit", "--since", String(latest + 3600)], { DB_PATH: dbPath })).stdout.trim()).toBe("");
    } finally {
      await server.stop();
    }
  });

  test("integration changes name the user and the client address: delivery URL, webhook URL, secret rotation", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
    try {
      await postJson(`${server.base}/api/company/register`, { name: "Audit Cars", netid: "AUDIT2", mainEmail: "b@audit.example", password, confirmPassword: password, mainPhone: "+12125550156", coType: "IO" });
      const core = await postJson(`${server.base}/api/token`, { uid: "AUDIT2", pw: password });
      const headers = { authorization: `Bearer ${core.body.token}`, "content-type": "application/json" };
      const put = (body: unknown) => fetch(`${server.base}/api/company/integration`, { method: "PUT", headers, body: JSON.stringify(body) });
      expect((await put({ deliveryUrl: "http://127.0.0.1:9/farm-in" })).status).toBe(200);
      expect((await put({ webhookUrl: "http://127.0.0.1:9/hooks" })).status).toBe(200);
      expect((await fetch(`${server.base}/api/company/integration/webhook-secret`, { method: "POST", headers })).status).toBe(200);
    } finally {
      await server.stop();
    }
    const out = await runCli(["audit", "--type", "integration.changed", "--netid", "AUDIT2"], { DB_PATH: dbPath });
    const rows = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r) => r.detail).sort()).toEqual(["set deliveryUrl", "set webhookUrl; webhook secret created", "webhook secret rotated"]);
    for (const row of rows) expect(row).toMatchObject({ uid: "AUDIT2", netid: "AUDIT2", address: "127.0.0.1" });
  });
});
