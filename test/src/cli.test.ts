import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { postJson, runCli, startServer, tempDir } from "../support/process";

const password = "correct horse battery staple";
const registration = { name: "Acme Limousine", netid: "ACME-LIMO", mainEmail: "ops@acme.example", password, confirmPassword: password, mainPhone: "+12125550123", coType: "IO" };

describe("CLI", () => {
  test("an unknown command or bad arguments print usage on stderr and exit 2", async () => {
    const env = { DB_PATH: join(tempDir(), "db.sqlite") };
    for (const args of [["bogus"], ["company", "set-plan", "ACME"], ["company", "set-plan", "ACME", "GOLD"], ["user", "remove"], ["migrate", "extra"]]) {
      const r = await runCli(args, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Usage: tripswitch");
    }
  });

  test("an invalid environment variable stops the process with a message naming it", async () => {
    const r = await runCli(["migrate"], { DB_PATH: join(tempDir(), "db.sqlite"), PORT: "eighty" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PORT");
  });

  test("migrate creates the database; set-plan and user remove act on it", async () => {
    const dir = tempDir();
    const env = { DB_PATH: join(dir, "data", "db.sqlite"), DEMO_DATA: "0" };
    expect((await runCli(["migrate"], env)).code).toBe(0);
    const server = await startServer(env);
    try {
      expect((await postJson(`${server.base}/api/company/register`, registration)).status).toBe(200);
      const token = await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: password });
      expect(token.status).toBe(200);
      const auth = { authorization: `Bearer ${(token.body as { token: string }).token}` };
      const searchLimit = async () => {
        const res = await fetch(`${server.base}/api/search/fleet?airports=JFK&limit=5`, { headers: auth });
        return { status: res.status, body: (await res.json()) as { data?: { limit: number }; code?: string } };
      };
      // The service caches callers; a change committed by the CLI (another process) must still show at once.
      expect((await searchLimit()).body.data?.limit).toBe(20);

      const plan = await runCli(["company", "set-plan", "acme-limo", "enterprise"], env);
      expect(plan.code).toBe(0);
      expect((await searchLimit()).body.data?.limit).toBe(5);
      const integration = async () => ((await (await fetch(`${server.base}/api/company/integration`, { headers: auth })).json()) as { data: { deliveryUrl: string | null } }).data;
      expect((await integration()).deliveryUrl).toBeNull();
      expect((await runCli(["company", "set-integration", "ACME-LIMO", "--delivery-url", "http://127.0.0.1:9/farm-in"], env)).code).toBe(0);
      expect((await integration()).deliveryUrl).toBe("http://127.0.0.1:9/farm-in");
      // Policies (docs/terms.md#policies) as JSON; a wrong one names each field and saves nothing.
      const policies = { cancellation: [{ beforeMinutes: 120, percent: 0 }, { beforeMinutes: 0, percent: 100 }] };
      expect((await runCli(["company", "set-integration", "ACME-LIMO", "--policies", JSON.stringify(policies)], env)).code).toBe(0);
      const withPolicies = (await integration()) as unknown as { policies: Record<string, unknown> };
      expect(withPolicies.policies).toEqual({ ...policies, freeWaitingMinutes: { airport: 60, other: 15 }, etaSpeedKmh: 40, assignBeforeMinutes: 120 });
      const wrong = await runCli(["company", "set-integration", "ACME-LIMO", "--policies", '{"cancellation":[{"beforeMinutes":-1,"percent":7}]}'], env);
      expect(wrong.code).toBe(2);
      expect((await runCli(["company", "set-integration", "ACME-LIMO", "--policies", "{not json"], env)).code).not.toBe(0);
      const db = new Database(env.DB_PATH, { readonly: true });
      expect(db.query("SELECT plan FROM companies WHERE netid = 'ACME-LIMO'").get()).toEqual({ plan: "ENTERPRISE" });
      db.close();
      expect((await runCli(["company", "set-plan", "NOBODY", "FREE"], env)).code).toBe(1);

      const platform = await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: password });
      expect(platform.status).toBe(200);
      const lookup = () => fetch(`${server.base}/Platform.svc/getReservationByTransactionId/${crypto.randomUUID()}`, { headers: { token: platform.body as string } });
      expect((await lookup()).status).toBe(404);
      expect((await runCli(["user", "remove", "ACME-LIMO"], env)).code).toBe(0);
      const removed = await searchLimit();
      expect(removed.status).toBe(404);
      expect(removed.body.code).toBe("USER_PROFILE_NOT_FOUND");
      expect((await lookup()).status).toBe(401);
      const released = await fetch(`${server.base}/Platform.svc/releaseToken`, { headers: { token: platform.body } });
      expect(released.status).toBe(401);
      expect((await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: password })).status).toBe(401);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("with PLATFORM_PORT the platform surface moves to that port and leaves PORT", async () => {
    const env = { DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0", PLATFORM_PORT: "0" };
    const server = await startServer(env);
    try {
      expect(server.platformPort).toBeGreaterThan(0);
      expect((await postJson(`${server.base}/api/company/register`, registration)).status).toBe(200);
      const onCore = await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: password });
      expect(onCore.status).toBe(404);
      const onPlatform = await postJson(`http://127.0.0.1:${server.platformPort}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: password });
      expect(onPlatform.status).toBe(200);
      expect(typeof onPlatform.body).toBe("string");
      expect((await fetch(`http://127.0.0.1:${server.platformPort}/api/token`, { method: "POST" })).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  test("serve loads the demo data on an empty database and prints the demo login", async () => {
    const server = await startServer({ DB_PATH: join(tempDir(), "db.sqlite") });
    try {
      expect(server.stderr()).toContain("Demo login: uid DEMO-PLATFORM");
      const token = await postJson(`${server.base}/api/token`, { uid: "DEMO-PLATFORM", pw: "tripswitch-demo-2026" });
      expect(token.status).toBe(200);
      // The demo platform is partnered with two of the three demo operators.
      const partners = await fetch(`${server.base}/api/partner/DEMO-PLATFORM`, { headers: { authorization: `Bearer ${token.body.token}` } });
      expect(await partners.json()).toEqual([
        { netid: "ACME-LIMO", name: "Acme Limousine", status: "active" },
        { netid: "BLUE-SKY-CARS", name: "Blue Sky Cars", status: "active" },
      ]);
      const full = await fetch(`${server.base}/api/partner/DEMO-PLATFORM?format=full`, { headers: { authorization: `Bearer ${token.body.token}` } });
      expect((await full.json())[0].partnerVehicleTypes).toMatchObject({ LUXURY_SUV: "SUV" });
    } finally {
      await server.stop();
    }
  });
});

/** A fresh database file migrated by the CLI, holding one company, ACME-LIMO, written straight into it. */
async function migratedWithAcme(): Promise<{ env: Record<string, string>; db: Database }> {
  const env = { DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0" };
  expect((await runCli(["migrate"], env)).code).toBe(0);
  const db = new Database(env.DB_PATH);
  db.run("INSERT INTO companies (netid, netid_lower, name, co_type, main_email, main_phone, created_at) VALUES ('ACME-LIMO', 'acme-limo', 'Acme', 'IO', 'a@x.example', '+12125550123', 0)");
  return { env, db };
}

describe("CLI company set-sandbox", () => {
  test("turns a company's sandbox on and off; an unknown netid is 1, bad arguments are usage errors", async () => {
    const { env, db } = await migratedWithAcme();
    const flag = () => (db.query("SELECT sandbox FROM companies WHERE netid = 'ACME-LIMO'").get() as { sandbox: number }).sandbox;
    expect(flag()).toBe(0);
    const on = await runCli(["company", "set-sandbox", "acme-limo", "on"], env);
    expect(on.code).toBe(0);
    expect(flag()).toBe(1);
    expect((await runCli(["company", "set-sandbox", "ACME-LIMO", "off"], env)).code).toBe(0);
    expect(flag()).toBe(0);
    expect((await runCli(["company", "set-sandbox", "NOBODY", "on"], env)).code).toBe(1);
    for (const args of [["company", "set-sandbox", "ACME-LIMO"], ["company", "set-sandbox", "ACME-LIMO", "yes"]]) expect((await runCli(args, env)).code).toBe(2);
    db.close();
  });
});

describe("CLI company set-integration: availability and trip length", () => {
  test("sets turnaroundMinutes, minimumNoticeMinutes and maxTripKm; a value out of range is 2 naming the field, nothing changed", async () => {
    const { env, db } = await migratedWithAcme();
    const set = await runCli(["company", "set-integration", "ACME-LIMO", "--turnaround-minutes", "45", "--minimum-notice-minutes", "120", "--max-trip-km", "400"], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ turnaroundMinutes: 45, minimumNoticeMinutes: 120, maxTripKm: 400 });
    const stored = () => db.query("SELECT turnaround_minutes AS t, minimum_notice_minutes AS n, max_trip_km AS k FROM company_integrations").get();
    expect(stored()).toEqual({ t: 45, n: 120, k: 400 });
    for (const [flag, value, field] of [["--max-trip-km", "0", "maxTripKm"], ["--max-trip-km", "5001", "maxTripKm"], ["--turnaround-minutes", "721", "turnaroundMinutes"], ["--minimum-notice-minutes", "10081", "minimumNoticeMinutes"], ["--max-trip-km", "ten", "maxTripKm"]]) {
      const bad = await runCli(["company", "set-integration", "ACME-LIMO", flag, value], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`${field}:`);
    }
    expect(stored()).toEqual({ t: 45, n: 120, k: 400 });
    // "" puts the default back.
    expect((await runCli(["company", "set-integration", "ACME-LIMO", "--max-trip-km", ""], env)).code).toBe(0);
    expect(stored()).toEqual({ t: 45, n: 120, k: 800 });
    db.close();
  });
});

describe("CLI company set-integration --display-currency (docs/fx.md#what-a-network-quote-shows)", () => {
  test("sets and clears displayCurrency; `eur`, XAU and ZZZ are 2 naming displayCurrency, nothing changed", async () => {
    const { env, db } = await migratedWithAcme();
    const set = await runCli(["company", "set-integration", "ACME-LIMO", "--display-currency", "EUR"], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ displayCurrency: "EUR" });
    const stored = () => (db.query("SELECT display_currency AS c FROM company_integrations").get() as { c: string | null }).c;
    expect(stored()).toBe("EUR");
    for (const value of ["eur", "XAU", "ZZZ"]) {
      const bad = await runCli(["company", "set-integration", "ACME-LIMO", "--display-currency", value], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("displayCurrency:");
    }
    expect(stored()).toBe("EUR");
    expect((await runCli(["company", "set-integration", "ACME-LIMO", "--display-currency", ""], env)).code).toBe(0);
    expect(stored()).toBeNull();
    db.close();
  });
});
