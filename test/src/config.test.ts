import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config";
import { registerCompany, runCli, startServer, tempDir } from "../support/process";

const secret = "s".repeat(32);
/** A production environment that starts: random-looking keys and a metrics token. */
const production = {
  NODE_ENV: "production",
  JWT_SECRET: "Yq3v9_LkT2w-Rz8pN4xHc6sJ0bFmA7dE",
  SECRETS_KEY: "5c0f9e2a7d41b8366ea2c1f0937b4d58a16e2f9c04b7d3e85a9c61f27e0b4d93",
  METRICS_TOKEN: "metrics-token-0123456789",
} as Record<string, string | undefined>;

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
    expect(() => loadConfig({ ...production, JWT_SECRET: undefined })).toThrow("JWT_SECRET");
    expect(() => loadConfig({ ...production, JWT_SECRET: "x".repeat(31) })).toThrow("JWT_SECRET");
    expect(loadConfig(production).jwtSecret).toBe(production.JWT_SECRET!);
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

describe("production refuses placeholder keys", () => {
  test.each([
    ["JWT_SECRET", "a".repeat(32)],
    ["JWT_SECRET", "abcd".repeat(8)],
    ["JWT_SECRET", "0123456789abcdef0123456789abcdef"],
    ["JWT_SECRET", "abcdefghijklmnopqrstuvwxyz012345"],
    ["SECRETS_KEY", "0".repeat(64)],
    ["SECRETS_KEY", "1f".repeat(32)],
    ["SECRETS_KEY", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"],
    ["SECRETS_KEY", "deadbeef".repeat(8)],
  ])("%s=%s is a start-up error naming the variable", (name, value) => {
    expect(() => loadConfig({ ...production, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, [name]: value })).toThrow(`${name} is too weak`);
    // Outside production the same values are allowed (tests and local runs use fixed keys).
    expect(() => loadConfig({ ...production, NODE_ENV: undefined, [name]: value })).not.toThrow();
  });

  test.each([
    "your-256-bit-secret-padded-to-32-bytes!!",
    "My-Key-YOUR-256-BIT-SECRET-Qz81xW",
    "a-string-secret-at-least-256-bits-long",
    "Replace-This-With-A-Random-Value-Qz81xW",
    "CHANGEME_k3J9xQ2vL8pR4tY6wN0bZ5mH",
    "secret-k3J9xQ2vL8pR4tY6wN0bZ5mH7cD1",
    "SecretKey_k3J9xQ2vL8pR4tY6wN0bZ5mH",
    "example-k3J9xQ2vL8pR4tY6wN0bZ5mH7cD1",
  ])("JWT_SECRET=%s, a well-known placeholder, is refused in production like a weak key (issue 37 N11)", (value) => {
    expect(() => loadConfig({ ...production, JWT_SECRET: value })).toThrow("JWT_SECRET is too weak for NODE_ENV=production");
    expect(() => loadConfig({ ...production, METRICS_TOKEN: value })).toThrow("METRICS_TOKEN is too weak for NODE_ENV=production");
    expect(() => loadConfig({ ...production, NODE_ENV: undefined, JWT_SECRET: value })).not.toThrow();
  });

  test.each([
    "your_jwt_secret_here_k3J9xQ2vL8pR4tY6",
    "k3J9xQ2v-my-secret-L8pR4tY6wN0bZ5mH",
    "Prod_SECRET_2024_k3J9xQ2vL8pR4tY6wN0b",
    "<jwt-signing-key-k3J9xQ2vL8pR4tY6wN0b>",
    "k3J9xQ2vL8pR4tY6wN0b<put the key here>",
    "REPLACE_ME_k3J9xQ2vL8pR4tY6wN0bZ5mH7c",
    "k3J9xQ2v-change-me-L8pR4tY6wN0bZ5mH",
    "k3J9xQ2v_Change_Me_L8pR4tY6wN0bZ5mH",
    "tripswitch-example-key-k3J9xQ2vL8pR4tY6",
    "Your-Key-Goes-Here-k3J9xQ2vL8pR4tY6wN0b",
  ])("JWT_SECRET=%s, a placeholder in another spelling, is refused in production (docs/security.md#placeholder-secrets)", (value) => {
    expect(() => loadConfig({ ...production, JWT_SECRET: value })).toThrow("JWT_SECRET is too weak for NODE_ENV=production");
    expect(() => loadConfig({ ...production, METRICS_TOKEN: value })).toThrow("METRICS_TOKEN is too weak for NODE_ENV=production");
    expect(() => loadConfig({ ...production, NODE_ENV: undefined, JWT_SECRET: value })).not.toThrow();
    let error: unknown;
    try {
      loadConfig({ ...production, JWT_SECRET: value });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).not.toContain(value);
  });

  test("a word that merely holds a placeholder's letters passes (Secretary, yourself, examples)", () => {
    for (const value of ["k3J9xQ2v-Secretary-L8pR4tY6wN0bZ5mH", "k3J9xQ2vYourselfL8pR4tY6wN0bZ5mH", "k3J9-examples-xQ2vL8pR4tY6wN0bZ5mH"])
      expect(loadConfig({ ...production, JWT_SECRET: value }).jwtSecret).toBe(value);
  });

  test("DATABASE_URL's password follows the same rule in production, and the message never repeats it", () => {
    for (const url of ["postgres://tripswitch:secret@db:5432/tripswitch", "postgres://tripswitch:your_password@db/tripswitch", "postgres://tripswitch:%3Cpassword%3E@db/tripswitch", "postgres:///tripswitch?host=/run/pg&password=CHANGE-ME"]) {
      let error: unknown;
      try {
        loadConfig({ ...production, DATABASE_URL: url });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("DATABASE_URL's password is too weak for NODE_ENV=production");
      expect((error as Error).message.toLowerCase()).not.toMatch(/your_password|change-me|:secret@/);
      expect(loadConfig({ ...production, NODE_ENV: undefined, DATABASE_URL: url }).databaseUrl).toBe(url);
    }
    const random = "postgres://tripswitch:9f3b7c1e5a2d48b6@db:5432/tripswitch";
    expect(loadConfig({ ...production, DATABASE_URL: random }).databaseUrl).toBe(random);
  });

  test("generated keys pass: 200 of each kind", () => {
    for (let i = 0; i < 200; i++) {
      const jwt = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
      const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
      expect(loadConfig({ ...production, JWT_SECRET: jwt, SECRETS_KEY: key })).toMatchObject({ jwtSecret: jwt, secretsKey: key });
    }
  });

  test("the serve command exits 2 with the variable named, before opening anything", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const weakJwt = await runCli(["serve"], { ...defined(production), DB_PATH: dbPath, JWT_SECRET: "a".repeat(32) });
    expect(weakJwt.code).toBe(2);
    expect(weakJwt.stderr).toContain("JWT_SECRET is too weak");
    const weakKey = await runCli(["serve"], { ...defined(production), DB_PATH: dbPath, SECRETS_KEY: "0".repeat(64) });
    expect(weakKey.code).toBe(2);
    expect(weakKey.stderr).toContain("SECRETS_KEY is too weak");
    const jwtIo = await runCli(["serve"], { ...defined(production), DB_PATH: dbPath, JWT_SECRET: "a-string-secret-at-least-256-bits-long" });
    expect(jwtIo.code).toBe(2);
    expect(jwtIo.stderr).toContain("JWT_SECRET is too weak");
    expect(jwtIo.stderr).not.toContain("a-string-secret-at-least-256-bits-long");
    // docs/security.md#placeholder-secrets: a template's words in another spelling stop the start as well.
    const template = await runCli(["serve"], { ...defined(production), DB_PATH: dbPath, JWT_SECRET: "your_jwt_secret_here_k3J9xQ2vL8pR4tY6" });
    expect(template.code).toBe(2);
    expect(template.stderr).toContain("JWT_SECRET is too weak");
    expect(template.stderr).not.toContain("your_jwt_secret_here");
    const token = await runCli(["serve"], { ...defined(production), DB_PATH: dbPath, METRICS_TOKEN: "<metrics-token-k3J9xQ2vL8pR4tY6>" });
    expect(token.code).toBe(2);
    expect(token.stderr).toContain("METRICS_TOKEN is too weak");
    expect(existsSync(dbPath)).toBe(false);
  });
});

describe("METRICS_TOKEN in production", () => {
  test("required with NODE_ENV=production unless METRICS_PUBLIC=1 says /metrics is public on purpose", () => {
    expect(() => loadConfig({ ...production, METRICS_TOKEN: undefined })).toThrow("METRICS_TOKEN is required");
    expect(loadConfig({ ...production, METRICS_TOKEN: undefined, METRICS_PUBLIC: "1" })).toMatchObject({ metricsToken: undefined, metricsPublic: true });
    expect(loadConfig(production)).toMatchObject({ metricsToken: production.METRICS_TOKEN, metricsPublic: false });
    // Development keeps /metrics open by default.
    expect(loadConfig({ JWT_SECRET: secret })).toMatchObject({ metricsToken: undefined, metricsPublic: false });
    expect(() => loadConfig({ ...production, METRICS_PUBLIC: "yes" })).toThrow("METRICS_PUBLIC");
  });

  test("serve refuses to start without it (exit 2); with METRICS_PUBLIC=1 it starts and warns on stderr", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const refused = await runCli(["serve"], { ...defined(production), METRICS_TOKEN: "", DB_PATH: dbPath });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("METRICS_TOKEN is required");
    const server = await startServer({ ...defined(production), METRICS_TOKEN: "", METRICS_PUBLIC: "1", DB_PATH: dbPath });
    try {
      expect(server.stderr()).toContain("warning: METRICS_PUBLIC=1");
      expect((await fetch(`${server.base}/metrics`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe("PASSWORD_HASH_COST", () => {
  test("owasp by default and in production; test only outside production; anything else refused", () => {
    expect(loadConfig({ JWT_SECRET: secret }).passwordHashCost).toBe("owasp");
    expect(loadConfig(production).passwordHashCost).toBe("owasp");
    expect(loadConfig({ JWT_SECRET: secret, PASSWORD_HASH_COST: "test" }).passwordHashCost).toBe("test");
    expect(() => loadConfig({ ...production, PASSWORD_HASH_COST: "test" })).toThrow("PASSWORD_HASH_COST=test is not allowed with NODE_ENV=production");
    expect(() => loadConfig({ JWT_SECRET: secret, PASSWORD_HASH_COST: "cheap" })).toThrow('PASSWORD_HASH_COST must be owasp or test, got "cheap"');
  });

  test("a service started without it stores argon2id at 19 MiB and 2 passes; with test it warns on stderr", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0", PASSWORD_HASH_COST: "" });
    try {
      await registerCompany(server, "COST-OWASP", "IO");
      expect(server.stderr()).not.toContain("PASSWORD_HASH_COST");
    } finally {
      await server.stop();
    }
    const cheap = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0", PASSWORD_HASH_COST: "test" });
    try {
      await registerCompany(cheap, "COST-TEST", "IO");
      expect(cheap.stderr()).toContain("warning: PASSWORD_HASH_COST=test");
    } finally {
      await cheap.stop();
    }
    const db = new Database(dbPath, { readonly: true });
    try {
      const hashes = Object.fromEntries(db.query<{ uid: string; h: string }, []>("SELECT uid, password_hash AS h FROM users").all().map((r) => [r.uid, r.h]));
      expect(hashes["COST-OWASP"]).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
      expect(hashes["COST-TEST"]).toStartWith("$argon2id$v=19$m=1024,t=1,p=1$");
    } finally {
      db.close();
    }
  });
});

describe("GAZETTEER_WARM", () => {
  test("1 by default (warmed at start); 0 leaves it to the first city lookup; anything else refused", () => {
    expect(loadConfig({ JWT_SECRET: secret }).gazetteerWarm).toBe(true);
    expect(loadConfig({ JWT_SECRET: secret, GAZETTEER_WARM: "0" }).gazetteerWarm).toBe(false);
    expect(() => loadConfig({ JWT_SECRET: secret, GAZETTEER_WARM: "later" })).toThrow('GAZETTEER_WARM must be 1 or 0, got "later"');
  });
});

function defined(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

describe("CONSOLE_MAP_TILES", () => {
  test("unset or empty: OpenStreetMap's standard tiles with their attribution; a valid template keeps its one origin", () => {
    for (const value of [undefined, "", "  "])
      expect(loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: value }).mapTiles).toEqual({
        template: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
        origin: "https://tile.openstreetmap.org",
        attribution: "© OpenStreetMap contributors",
      });
    expect(loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: "https://Tiles.Example:8443/osm/{z}/{x}/{y}{r}.png?key=abc", CONSOLE_MAP_ATTRIBUTION: "© Example, © OpenStreetMap contributors" }).mapTiles).toEqual({
      template: "https://tiles.example:8443/osm/{z}/{x}/{y}{r}.png?key=abc",
      origin: "https://tiles.example:8443",
      attribution: "© Example, © OpenStreetMap contributors",
    });
    // The default port is dropped from the origin, as browsers compare it.
    expect(loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: "https://maps.example:443/{z}/{x}/{y}.png" }).mapTiles.origin).toBe("https://maps.example");
    expect(loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: "off" }).mapTiles).toEqual({ template: undefined, origin: undefined, attribution: "© OpenStreetMap contributors" });
  });

  test.each([
    ["not a URL", "tiles please", "spaces"],
    ["another scheme", "ftp://tiles.example/{z}/{x}/{y}.png", "does not start with https://"],
    ["plain http", "http://tiles.example/{z}/{x}/{y}.png", "an http:// origin is not accepted"],
    ["a wildcard host", "https://*.example/{z}/{x}/{y}.png", 'has "*"'],
    ["a wildcard alone", "https://*/{z}/{x}/{y}.png", 'has "*"'],
    ["a semicolon after the host", "https://tiles.example;script-src/{z}/{x}/{y}.png", 'has ";"'],
    ["a comma after the host", "https://tiles.example,evil.example/{z}/{x}/{y}.png", 'has ","'],
    ["a semicolon in the path", "https://tiles.example/a;b/{z}/{x}/{y}.png", 'has ";"'],
    ["a wildcard in the query", "https://tiles.example/{z}/{x}/{y}.png?k=*", 'has "*"'],
    ["a host with an underscore", "https://tiles_x.example/{z}/{x}/{y}.png", "host is not valid"],
    ["no path", "https://tiles.example", "no path"],
    ["no {y}", "https://tiles.example/{z}/{x}.png", "{y} is missing"],
    ["a {s} subdomain", "https://{s}.tile.example/{z}/{x}/{y}.png", "exactly one origin"],
    ["an unknown placeholder", "https://tiles.example/{z}/{x}/{y}.png?k={key}", "{key} is not a placeholder"],
    ["credentials", "https://user:pw@tiles.example/{z}/{x}/{y}.png", "user name or password"],
    ["a quote", "https://tiles.example/{z}/{x}/{y}.png'", "quotes"],
    ["a bad host", "https://tiles..example:99999/{z}/{x}/{y}.png", "host is not valid"],
  ])("%s is refused with the variable named", (_what, value, reason) => {
    expect(() => loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: value })).toThrow(`CONSOLE_MAP_TILES must be "off" or an https:// URL template`);
    expect(() => loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_TILES: value })).toThrow(reason);
  });

  test("an attribution with markup is refused", () => {
    expect(() => loadConfig({ JWT_SECRET: secret, CONSOLE_MAP_ATTRIBUTION: "<img src=x onerror=alert(1)>" })).toThrow("CONSOLE_MAP_ATTRIBUTION must be plain text");
  });

  test("serve refuses to start with a bad value (exit 2, the variable named), before opening anything", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const refused = await runCli(["serve"], { JWT_SECRET: secret, DB_PATH: dbPath, CONSOLE_MAP_TILES: "https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("CONSOLE_MAP_TILES must be");
    expect(existsSync(dbPath)).toBe(false);
  });

  test("serve refuses a wildcard, a ; or , and plain http (exit 2, the variable named): nothing reaches the page policy (issue 37 N10)", async () => {
    for (const value of ["https://*.example/{z}/{x}/{y}.png", "https://a.example;script-src/{z}/{x}/{y}.png", "https://a.example/,x/{z}/{x}/{y}.png", "http://a.example/{z}/{x}/{y}.png"]) {
      const dbPath = join(tempDir(), "db.sqlite");
      const refused = await runCli(["serve"], { JWT_SECRET: secret, DB_PATH: dbPath, CONSOLE_MAP_TILES: value });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("CONSOLE_MAP_TILES must be \"off\" or an https:// URL template");
      expect(existsSync(dbPath)).toBe(false);
    }
  });
});

describe("FLIGHT_STATUS_KEY", () => {
  test("unset or blank: the flight-status poller is off; set: AeroAPI with the defaults of docs/flights.md#the-flight-status-poller", () => {
    expect(loadConfig({ JWT_SECRET: secret }).flightStatus).toBeUndefined();
    expect(loadConfig({ JWT_SECRET: secret, FLIGHT_STATUS_KEY: "  " }).flightStatus).toBeUndefined();
    expect(loadConfig({ JWT_SECRET: secret, FLIGHT_STATUS_KEY: "k-123" }).flightStatus).toEqual({
      url: "https://aeroapi.flightaware.com/aeroapi",
      apiKey: "k-123",
      windowHours: 6,
      perMinute: 10,
      intervalSeconds: 600,
      timeoutMs: 5000,
    });
  });

  test("each setting within its bounds, the URL an http(s) one; a message names the variable and never the key", () => {
    const env = { JWT_SECRET: secret, FLIGHT_STATUS_KEY: "secret-flight-key" };
    const tuned = { FLIGHT_STATUS_URL: "http://127.0.0.1:9999/aeroapi", FLIGHT_STATUS_WINDOW_HOURS: "12", FLIGHT_STATUS_PER_MINUTE: "100" };
    expect(loadConfig({ ...env, ...tuned }).flightStatus).toMatchObject({ url: "http://127.0.0.1:9999/aeroapi", windowHours: 12, perMinute: 100 });
    for (const bad of [
      { FLIGHT_STATUS_URL: "aeroapi.example" },
      { FLIGHT_STATUS_URL: "ftp://aeroapi.example" },
      { FLIGHT_STATUS_WINDOW_HOURS: "0" },
      { FLIGHT_STATUS_WINDOW_HOURS: "49" },
      { FLIGHT_STATUS_PER_MINUTE: "0" },
      { FLIGHT_STATUS_INTERVAL_SECONDS: "soon" },
      { FLIGHT_STATUS_TIMEOUT_MS: "50" },
    ]) {
      const [name] = Object.keys(bad);
      let error: unknown;
      try {
        loadConfig({ ...env, ...bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).not.toContain("secret-flight-key");
    }
  });
});
