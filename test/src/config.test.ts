import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config";
import { tempDir } from "../support/process";

const secret = "s".repeat(32);

describe("loadConfig", () => {
  test("defaults", () => {
    const c = loadConfig({ JWT_SECRET: secret });
    expect(c).toMatchObject({ port: 3000, platformPort: undefined, host: "0.0.0.0", dbPath: "./data/tripswitch.sqlite", tokenTtlSeconds: 3600, maxBodyBytes: 1048576, logLevel: "info", demoData: undefined });
  });

  test.each([
    ["PORT", { PORT: "abc" }],
    ["PORT", { PORT: "70000" }],
    ["PLATFORM_PORT", { PLATFORM_PORT: "-1" }],
    ["TOKEN_TTL_SECONDS", { TOKEN_TTL_SECONDS: "1.5" }],
    ["MAX_BODY_BYTES", { MAX_BODY_BYTES: "10" }],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
    ["DEMO_DATA", { DEMO_DATA: "yes" }],
    ["JWT_SECRET", { JWT_SECRET: "short" }],
    ["RATE_LIMIT_SEARCH_PER_MIN", { RATE_LIMIT_SEARCH_PER_MIN: "-5" }],
    ["RATE_LIMIT_SENDTRIP_PER_MIN", { RATE_LIMIT_SENDTRIP_PER_MIN: "lots" }],
    ["IDLE_TIMEOUT_SECONDS", { IDLE_TIMEOUT_SECONDS: "0" }],
    ["IDLE_TIMEOUT_SECONDS", { IDLE_TIMEOUT_SECONDS: "256" }],
    ["TRUST_PROXY", { TRUST_PROXY: "yes" }],
    ["DELIVERY_LEASE_SECONDS", { DELIVERY_LEASE_SECONDS: "0" }],
    ["DELIVERY_LEASE_SECONDS", { DELIVERY_LEASE_SECONDS: "3601" }],
    ["DELIVERY_LEASE_SECONDS", { DELIVERY_LEASE_SECONDS: "soon" }],
  ])("an invalid %s is an error naming the variable", (name, env) => {
    expect(() => loadConfig({ JWT_SECRET: secret, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ JWT_SECRET: secret, ...env })).toThrow(name);
  });

  test("abuse limits: generous rate limits, a 30 s idle timeout and no proxy trust by default; 0 disables a rate limit", () => {
    expect(loadConfig({ JWT_SECRET: secret })).toMatchObject({ rateLimits: { searchPerMinute: 6000, sendTripPerMinute: 6000 }, idleTimeoutSeconds: 30, trustProxy: false });
    expect(loadConfig({ JWT_SECRET: secret, RATE_LIMIT_SEARCH_PER_MIN: "0", RATE_LIMIT_SENDTRIP_PER_MIN: "12", IDLE_TIMEOUT_SECONDS: "5", TRUST_PROXY: "1" })).toMatchObject({
      rateLimits: { searchPerMinute: 0, sendTripPerMinute: 12 },
      idleTimeoutSeconds: 5,
      trustProxy: true,
    });
  });

  test("production requires a JWT_SECRET of at least 32 bytes", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow("JWT_SECRET");
    expect(() => loadConfig({ NODE_ENV: "production", JWT_SECRET: "x".repeat(31) })).toThrow("JWT_SECRET");
    expect(loadConfig({ NODE_ENV: "production", JWT_SECRET: secret, SECRETS_KEY: "1f".repeat(32) }).jwtSecret).toBe(secret);
  });

  test("development generates a secret once and keeps it next to the database", () => {
    const dir = tempDir();
    const dbPath = join(dir, "sub", "db.sqlite");
    const first = loadConfig({ DB_PATH: dbPath }).jwtSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dir, "sub", ".jwt-secret"), "utf8")).toBe(first);
    expect(loadConfig({ DB_PATH: dbPath }).jwtSecret).toBe(first);
    expect(existsSync(join(dir, "sub"))).toBe(true);
  });
});

describe("DELIVERY_LEASE_SECONDS", () => {
  test("30 s by default; whole seconds from 1 to 3600", () => {
    expect(loadConfig({ JWT_SECRET: secret }).deliveryLeaseSeconds).toBe(30);
    expect(loadConfig({ JWT_SECRET: secret, DELIVERY_LEASE_SECONDS: "3" }).deliveryLeaseSeconds).toBe(3);
  });
});

describe("DATABASE_URL", () => {
  test("unset or empty: no PostgreSQL (SQLite at DB_PATH)", () => {
    expect(loadConfig({ JWT_SECRET: secret }).databaseUrl).toBeUndefined();
    expect(loadConfig({ JWT_SECRET: secret, DATABASE_URL: "  " }).databaseUrl).toBeUndefined();
  });

  test.each([
    "postgres://tripswitch:s3cret@db.internal:5432/tripswitch",
    "postgresql://tripswitch:s3cret@10.0.0.5/tripswitch?sslmode=require",
    "postgres://tripswitch@localhost/tripswitch",
    "postgres://tripswitch:s3cret@127.0.0.1:5432/tripswitch?path=%2Frun%2Fpostgresql",
    "postgresql:///tripswitch?host=/run/postgresql",
  ])("a PostgreSQL URL is kept as given: %s", (url) => {
    expect(loadConfig({ JWT_SECRET: secret, DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(loadConfig({ JWT_SECRET: secret, DATABASE_URL: ` ${url}\n` }).databaseUrl).toBe(url);
  });

  test.each([
    "mysql://root:hunter2-password@db/tripswitch",
    "https://user:hunter2-password@db.example/tripswitch",
    "db.internal:5432/tripswitch?password=hunter2-password",
    "postgres//user:hunter2-password@db/tripswitch",
    "postgres://user:hunter2-password@/tripswitch",
    "postgres:///tripswitch?password=hunter2-password",
    "./data/hunter2-password.sqlite",
    "hunter2-password:tripswitch@db/tripswitch",
  ])("anything else is an error naming DATABASE_URL without repeating the password: %s", (url) => {
    let error: unknown;
    try {
      loadConfig({ JWT_SECRET: secret, DATABASE_URL: url });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("DATABASE_URL");
    expect((error as Error).message).not.toContain("hunter2");
  });
});
