import { beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness, databaseEnv, databaseRows, type Harness } from "../../support/harness";
import { runCli, tempDir } from "../../support/process";

/** The give-back recovery tiers a company that set none shows (docs/settlement.md#give-back-recovery). */
const DEFAULT_RECOVERY = [
  { beforeMinutes: 1440, percent: 0 },
  { beforeMinutes: 120, percent: 50 },
  { beforeMinutes: 0, percent: 100 },
];
let h: Harness;
let token: string;
let auth: Record<string, string>;

beforeEach(async () => {
  h = createHarness();
  const c = await h.registerCompany();
  token = await h.coreToken(c.netid, c.password);
  auth = { authorization: `Bearer ${token}` };
});

describe("company integration settings", () => {
  test("defaults: nothing set, luggage as notes", async () => {
    const res = await h.request("GET", "/api/company/integration", { headers: auth });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deliveryUrl: null, deliveryAuth: null, luggage: "notes", webhookUrl: null, webhookFormat: "events", acceptTripsFrom: "anyone", serviceRadiusKm: 50, turnaroundMinutes: 30, minimumNoticeMinutes: 0, maxTripKm: 800, displayCurrency: null, policies: { cancellation: [{ beforeMinutes: 60, percent: 0 }, { beforeMinutes: 0, percent: 100 }], freeWaitingMinutes: { airport: 60, other: 15 }, etaSpeedKmh: 40, assignBeforeMinutes: 120 }, giveBackRecovery: DEFAULT_RECOVERY, webhookSecretSet: false, webhookVerified: false });
  });

  test("serviceRadiusKm: a whole number of km from 1 to 500, null back to 50; anything else 400 naming it", async () => {
    const put = await h.request("PUT", "/api/company/integration", { headers: auth, body: { serviceRadiusKm: 120 } });
    expect(put.status).toBe(200);
    expect(put.body.data.serviceRadiusKm).toBe(120);
    expect((await h.request("GET", "/api/company/integration", { headers: auth })).body.data.serviceRadiusKm).toBe(120);
    for (const bad of [0, 501, 12.5, -3, "80"]) {
      const res = await h.request("PUT", "/api/company/integration", { headers: auth, body: { serviceRadiusKm: bad } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: "VALIDATION_FAILED" });
      expect(res.body.errors.map((e: { field: string }) => e.field).join()).toContain("serviceRadiusKm");
    }
    const reset = await h.request("PUT", "/api/company/integration", { headers: auth, body: { serviceRadiusKm: null } });
    expect(reset.body.data.serviceRadiusKm).toBe(50);
  });

  test("set, read back without secrets, and clear with null", async () => {
    const put = await h.request("PUT", "/api/company/integration", {
      headers: auth,
      body: { deliveryUrl: "https://partner.example/farm-in", deliveryAuth: { username: "tripswitch", password: "s3cret-basic" }, luggage: "native" },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ deliveryUrl: "https://partner.example/farm-in", deliveryAuth: { username: "tripswitch" }, luggage: "native", webhookUrl: null, webhookFormat: "events", acceptTripsFrom: "anyone", serviceRadiusKm: 50, turnaroundMinutes: 30, minimumNoticeMinutes: 0, maxTripKm: 800, displayCurrency: null, policies: { cancellation: [{ beforeMinutes: 60, percent: 0 }, { beforeMinutes: 0, percent: 100 }], freeWaitingMinutes: { airport: 60, other: 15 }, etaSpeedKmh: 40, assignBeforeMinutes: 120 }, giveBackRecovery: DEFAULT_RECOVERY, webhookSecretSet: false, webhookVerified: false });
    expect(put.text).not.toContain("s3cret-basic");
    const get = await h.request("GET", "/api/company/integration", { headers: auth });
    expect(get.body.data).toEqual(put.body.data);
    expect(get.text).not.toContain("s3cret-basic");

    const cleared = await h.request("PUT", "/api/company/integration", { headers: auth, body: { deliveryUrl: null, deliveryAuth: null } });
    expect(cleared.body.data).toMatchObject({ deliveryUrl: null, deliveryAuth: null, luggage: "native" });
  });

  test("webhookFormat: events by default, gnet on request (any case), back to events", async () => {
    const gnet = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookFormat: "GNet" } });
    expect(gnet.status).toBe(200);
    expect(gnet.body.data.webhookFormat).toBe("gnet");
    expect((await h.request("GET", "/api/company/integration", { headers: auth })).body.data.webhookFormat).toBe("gnet");
    const back = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookFormat: "events" } });
    expect(back.body.data.webhookFormat).toBe("events");
  });

  test("the webhook secret is shown once when created, then only on rotation", async () => {
    const first = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: "https://hooks.example/tripswitch" } });
    const secret = first.body.data.webhookSecret;
    expect(secret).toStartWith("whsec_");
    const again = await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: "https://hooks.example/v2" } });
    expect(again.body.data.webhookSecret).toBeUndefined();
    expect(again.body.data.webhookSecretSet).toBe(true);
    const get = await h.request("GET", "/api/company/integration", { headers: auth });
    expect(get.text).not.toContain(secret);
    const rotated = await h.request("POST", "/api/company/integration/webhook-secret", { headers: auth });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.webhookSecret).toStartWith("whsec_");
    expect(rotated.body.data.webhookSecret).not.toBe(secret);
  });

  test("each change is audited with the user who made it and the client address", async () => {
    expect((await h.request("PUT", "/api/company/integration", { headers: auth, body: { webhookUrl: "https://hooks.example/in" } })).status).toBe(200);
    expect((await h.request("POST", "/api/company/integration/webhook-secret", { headers: auth })).status).toBe(200);
    await h.services.audit.flush();
    const rows = await h.rows<{ uid: string | null; address: string | null; detail: string }>("SELECT uid, address, detail FROM audit_events WHERE type = 'integration.changed' ORDER BY id");
    // hooks.example does not answer the challenge: the row says so.
    expect(rows.map((r) => r.detail)).toEqual(["set webhookUrl; webhook secret created; webhook URL not verified", "webhook secret rotated"]);
    const [uid] = await h.rows<{ uid: string }>("SELECT uid FROM users");
    // The harness has no socket: its client address is "local".
    for (const row of rows) expect([row.uid, row.address]).toEqual([uid.uid, "local"]);
  });

  test("invalid settings are a 400 naming every field, and change nothing", async () => {
    const res = await h.request("PUT", "/api/company/integration", { headers: auth, body: { deliveryUrl: "javascript:alert(1)", luggage: "suitcase", webhookFormat: "xml" } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["deliveryUrl", "luggage", "webhookFormat"]);
    const get = await h.request("GET", "/api/company/integration", { headers: auth });
    expect(get.body.data.deliveryUrl).toBeNull();
  });

  test("needs a bearer token", async () => {
    expect((await h.request("GET", "/api/company/integration")).status).toBe(401);
    expect((await h.request("PUT", "/api/company/integration", { body: { luggage: "notes" } })).status).toBe(401);
  });

  test("the webhook delivery log is paged and a foreign or unknown id is 404", async () => {
    const list = await h.request("GET", "/api/webhooks/deliveries", { headers: auth });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
    expect((await h.request("GET", "/api/webhooks/deliveries?limit=0", { headers: auth })).status).toBe(400);
    expect((await h.request("GET", "/api/webhooks/deliveries?offset=-1", { headers: auth })).body.errors[0].field).toBe("offset");
    for (const id of ["999", "abc"]) expect((await h.request("POST", `/api/webhooks/deliveries/${id}/replay`, { headers: auth })).status).toBe(404);
  });
});

describe("CLI company set-integration", () => {
  test("sets and clears settings; bad values exit 2", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const env = databaseEnv(dbPath);
    expect((await runCli(["seed-demo"], env)).code).toBe(0);
    const set = await runCli(["company", "set-integration", "ACME-LIMO", "--delivery-url", "http://127.0.0.1:9/farm-in", "--luggage", "native"], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ deliveryUrl: "http://127.0.0.1:9/farm-in", luggage: "native" });
    expect((await databaseRows(dbPath, "SELECT delivery_url, luggage FROM company_integrations WHERE netid = 'ACME-LIMO'"))[0]).toEqual({ delivery_url: "http://127.0.0.1:9/farm-in", luggage: "native" });
    const partnersOnly = await runCli(["company", "set-integration", "ACME-LIMO", "--accept-trips-from", "partners"], env);
    expect([partnersOnly.code, JSON.parse(partnersOnly.stdout).acceptTripsFrom]).toEqual([0, "partners"]);
    expect((await runCli(["company", "set-integration", "ACME-LIMO", "--accept-trips-from", "friends"], env)).code).toBe(2);
    expect((await runCli(["company", "set-integration", "ACME-LIMO", "--luggage", "bags"], env)).code).toBe(2);
    expect((await runCli(["company", "set-integration", "ACME-LIMO", "--colour", "red"], env)).code).toBe(2);
    expect((await runCli(["company", "set-integration", "NOBODY", "--luggage", "notes"], env)).code).toBe(1);
    const cleared = await runCli(["company", "set-integration", "ACME-LIMO", "--delivery-url", ""], env);
    expect(JSON.parse(cleared.stdout).deliveryUrl).toBeNull();
  });
});
