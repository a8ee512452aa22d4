import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createHarness, TEST_JWT_SECRET } from "../../support/harness";
import { runCli, tempDir } from "../../support/process";
import { SecretBox } from "../../../adapters/security/secrets";
import { ConfigError, loadConfig } from "../../../src/config";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PASSWORD = "partner-basic-pw-FINDME-4711";
const mode = (file: string) => statSync(file).mode & 0o777;
/** Every byte of the database: the main file and its WAL. */
const databaseBytes = (dbPath: string) => Buffer.concat([readFileSync(dbPath), existsSync(`${dbPath}-wal`) ? readFileSync(`${dbPath}-wal`) : Buffer.alloc(0)]);

describe("secrets at rest", () => {
  test("delivery passwords and webhook secrets are unreadable in the database file and in a backup; files are 0600", async () => {
    const dir = tempDir();
    const dbPath = join(dir, "db.sqlite");
    const h = createHarness({ dbPath });
    const c = await h.registerCompany();
    const auth = { authorization: `Bearer ${await h.coreToken(c.netid, c.password)}` };
    const put = await h.request("PUT", "/api/company/integration", {
      headers: auth,
      body: { deliveryUrl: "https://partner.example/farm-in", deliveryAuth: { username: "tripswitch", password: PASSWORD }, webhookUrl: "https://hooks.example/in" },
    });
    expect(put.status).toBe(200);
    const webhookSecret: string = put.body.data.webhookSecret;
    expect(webhookSecret.length).toBeGreaterThanOrEqual(32);
    // What the service reads back is the plain value (what deliveries and signatures use).
    expect(h.services.integrations.getSync(c.netid)).toMatchObject({ deliveryAuth: { password: PASSWORD }, webhookSecret });
    h.close();

    for (const bytes of [databaseBytes(dbPath)]) {
      expect(bytes.includes(PASSWORD)).toBe(false);
      expect(bytes.includes(webhookSecret)).toBe(false);
      expect(bytes.includes("enc:v1:")).toBe(true);
    }
    const backup = join(dir, "backups", "copy.sqlite");
    const r = await runCli(["backup", backup], { DB_PATH: dbPath });
    expect(r.code).toBe(0);
    const backupBytes = readFileSync(backup);
    expect(backupBytes.includes(PASSWORD)).toBe(false);
    expect(backupBytes.includes(webhookSecret)).toBe(false);
    expect(mode(backup)).toBe(0o600);
    expect(mode(dbPath)).toBe(0o600);
    if (existsSync(`${dbPath}-wal`)) expect(mode(`${dbPath}-wal`)).toBe(0o600);
    expect(mode(join(dir, ".secrets-key"))).toBe(0o600);
    expect(readFileSync(join(dir, ".secrets-key"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
  });

  test("plain-text secrets stored before encryption keep working and are sealed at the next start", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const first = createHarness({ dbPath });
    const c = await first.registerCompany();
    first.db.$client.query("INSERT INTO company_integrations (netid, delivery_url, delivery_username, delivery_password, luggage, webhook_url, webhook_secret, updated_at) VALUES (?, ?, ?, ?, 'notes', ?, ?, 0)")
      .run(c.netid, "https://partner.example/farm-in", "legacy", PASSWORD, "https://hooks.example/in", "legacy-webhook-secret-0123456789abcdef");
    first.close();
    const second = createHarness({ dbPath });
    cleanups.push(() => second.close());
    expect(second.services.integrations.getSync(c.netid)).toMatchObject({ deliveryAuth: { username: "legacy", password: PASSWORD }, webhookSecret: "legacy-webhook-secret-0123456789abcdef" });
    const row = second.db.$client.query<{ p: string; s: string }, []>("SELECT delivery_password AS p, webhook_secret AS s FROM company_integrations").get()!;
    expect(row.p).toStartWith("enc:v1:");
    expect(row.s).toStartWith("enc:v1:");
    second.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(databaseBytes(dbPath).includes(PASSWORD)).toBe(false);
  });

  test("a sealed value opens only with its key and in its own place", () => {
    const box = new SecretBox(SecretBox.newKey());
    const sealed = box.seal(PASSWORD, "deliveryPassword:ACME");
    expect(sealed).not.toContain(PASSWORD);
    expect(box.seal(PASSWORD, "deliveryPassword:ACME")).not.toBe(sealed);
    expect(box.open(sealed, "deliveryPassword:ACME")).toBe(PASSWORD);
    expect(() => box.open(sealed, "deliveryPassword:OTHER")).toThrow();
    expect(() => new SecretBox(SecretBox.newKey()).open(sealed, "deliveryPassword:ACME")).toThrow();
  });

  test("SECRETS_KEY: required in production, 64 hex characters when given", () => {
    // A random-looking secret: TEST_JWT_SECRET holds the word "secret", a placeholder's (docs/security.md#placeholder-secrets).
    const production = { NODE_ENV: "production", JWT_SECRET: "Yq3v9_LkT2w-Rz8pN4xHc6sJ0bFmA7dE", METRICS_TOKEN: "metrics-token-0123456789" };
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, SECRETS_KEY: "abc" })).toThrow("SECRETS_KEY");
    const key = "5c0f9e2a7d41b8366ea2c1f0937b4d58a16e2f9c04b7d3e85a9c61f27e0b4d93";
    expect(loadConfig({ ...production, SECRETS_KEY: key }).secretsKey).toBe(key);
  });
});
