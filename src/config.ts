import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SECRETS_KEY_PATTERN, SecretBox } from "../adapters/security/secrets";
import { placeholderSecretReason, weakKeyReason, weakSecretReason } from "../adapters/security/key-strength";
import { mapTilesFrom, type MapTiles } from "../adapters/console/tiles";
import { STORE_BOUNDS, type StoreBounds } from "../domain/events/store-bounds";
import { PASSWORD_HASH_COSTS, type PasswordHashCost } from "../adapters/security/password";

export interface Config {
  port: number;
  platformPort: number | undefined;
  host: string;
  dbPath: string;
  jwtSecret: string;
  tokenTtlSeconds: number;
  demoData: boolean | undefined;
  logLevel: string;
  maxBodyBytes: number;
  /** Per-company budgets per minute; 0 disables one. */
  rateLimits: { searchPerMinute: number; sendTripPerMinute: number; registrationsPerHour: number; writesPerMinute: number };
  /** Per-company bounds of the live event log and the network quote store (docs/security.md#per-company-store-bounds). */
  storeBounds: StoreBounds;
  /** Seconds a connection may stay silent (a slow client is cut off after it). */
  idleTimeoutSeconds: number;
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy that sets it). */
  trustProxy: boolean;
  production: boolean;
  /** 32 bytes as 64 hex characters: seals delivery passwords and webhook secrets at rest. */
  secretsKey: string;
  /** OUTBOUND_ALLOW_PRIVATE=1: delivery and webhook URLs may reach private addresses, over http (development, tests). */
  outboundAllowPrivate: boolean;
  /** When set, GET /metrics answers only `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined;
  /** METRICS_PUBLIC=1: in production, /metrics may go without METRICS_TOKEN (the service warns at start). */
  metricsPublic: boolean;
  /** DATABASE_URL (postgres:// or postgresql://): the PostgreSQL database several instances share; unset: SQLite at dbPath. */
  databaseUrl: string | undefined;
  /**
   * On PostgreSQL: seconds a delivery an instance claimed stays its own without renewal (a live instance renews
   * every third of it; a dead one's deliveries pass to another instance after it).
   */
  deliveryLeaseSeconds: number;
  /**
   * OFFER_WATCH_MS: how often the offer watch looks for lapsed acceptance deadlines and moves
   * (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback).
   */
  offerWatchMs: number;
  /** CONSOLE_MAP_TILES (+ CONSOLE_MAP_ATTRIBUTION): the tiles the console's maps load; OpenStreetMap's by default. */
  mapTiles: MapTiles;
  /**
   * REUSE_PORT=1: several processes share the port (the kernel spreads connections); PostgreSQL only. Without it a
   * port already taken stops the start (exit 1) instead of silently sharing it.
   */
  reusePort: boolean;
  /** PASSWORD_HASH_COST: argon2id's cost, `owasp` (the default, always in production) or `test` (the test suite's). */
  passwordHashCost: PasswordHashCost;
  /**
   * GAZETTEER_WARM (default 1): read the city gazetteer in a Worker as soon as the service listens (~1 s of CPU), so
   * the first city pickup finds it; 0: read it at the first city lookup (that request waits for it).
   */
  gazetteerWarm: boolean;
  /**
   * GEOCODER_URL: a Photon- or Nominatim-compatible `/search` endpoint that places drop-offs and stops by their
   * address (docs/places.md#the-geocoder); unset: by their city. GEOCODER_TIMEOUT_MS bounds each search.
   */
  geocoderUrl: string | undefined;
  geocoderTimeoutMs: number;
  /**
   * FLIGHT_STATUS_KEY (an AeroAPI key) turns on the flight-status poller (docs/flights.md#the-flight-status-poller);
   * unset: off. FLIGHT_STATUS_URL, _WINDOW_HOURS, _PER_MINUTE, _INTERVAL_SECONDS and _TIMEOUT_MS tune it.
   */
  flightStatus: FlightStatusConfig | undefined;
}

/** The flight-status poller's settings (docs/flights.md#the-flight-status-poller). */
export interface FlightStatusConfig {
  url: string;
  apiKey: string;
  windowHours: number;
  perMinute: number;
  intervalSeconds: number;
  timeoutMs: number;
}

/** A configuration problem; the process exits with its message, which names the variable. */
export class ConfigError extends Error {}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
export const IMPORT_BODY_BYTES = 16 * 1024 * 1024;

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be from ${min} to ${max}, got ${value}`);
  return value;
}

function flag(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (raw !== "0" && raw !== "1") throw new ConfigError(`${name} must be 1 or 0, got "${env[name]}"`);
  return raw === "1";
}

/**
 * Reads and validates the configuration. Without JWT_SECRET outside production, a random secret is
 * generated once and kept next to the database, so a restart keeps tokens valid.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const production = env.NODE_ENV === "production";
  const port = integer(env, "PORT", 3000, 0, 65535);
  const platformPort = env.PLATFORM_PORT ? integer(env, "PLATFORM_PORT", 0, 0, 65535) : undefined;
  const host = env.HOST?.trim() || "0.0.0.0";
  const dbPath = env.DB_PATH?.trim() || "./data/tripswitch.sqlite";
  const tokenTtlSeconds = integer(env, "TOKEN_TTL_SECONDS", 3600, 60, 30 * 24 * 3600);
  const maxBodyBytes = integer(env, "MAX_BODY_BYTES", 1048576, 1024, IMPORT_BODY_BYTES);
  const logLevel = (env.LOG_LEVEL?.trim() || "info").toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  const rateLimits = {
    searchPerMinute: integer(env, "RATE_LIMIT_SEARCH_PER_MIN", 6000, 0, 1_000_000),
    sendTripPerMinute: integer(env, "RATE_LIMIT_SENDTRIP_PER_MIN", 6000, 0, 1_000_000),
    registrationsPerHour: integer(env, "RATE_LIMIT_REGISTER_PER_HOUR", 20, 0, 1_000_000),
    writesPerMinute: integer(env, "RATE_LIMIT_WRITES_PER_MIN", 1200, 0, 1_000_000),
  };
  const storeBounds: StoreBounds = {
    liveEventBytes: integer(env, "LIVE_EVENTS_MAX_BYTES", STORE_BOUNDS.liveEventBytes, 1024, 1_000_000_000_000),
    quotesPerHour: integer(env, "QUOTES_PER_HOUR", STORE_BOUNDS.quotesPerHour, 1, 1_000_000),
    quoteMaxBytes: integer(env, "QUOTE_MAX_BYTES", STORE_BOUNDS.quoteMaxBytes, 1024, 64 * 1024 * 1024),
    quoteKeptBytes: integer(env, "QUOTES_MAX_KEPT_BYTES", STORE_BOUNDS.quoteKeptBytes, 1024, 1_000_000_000_000),
  };
  // Bun allows 0 (no timeout) to 255 s; 0 would let a silent client hold a connection forever.
  const idleTimeoutSeconds = integer(env, "IDLE_TIMEOUT_SECONDS", 30, 1, 255);
  const trustProxy = flag(env, "TRUST_PROXY", false);
  const outboundAllowPrivate = flag(env, "OUTBOUND_ALLOW_PRIVATE", false);
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError("METRICS_TOKEN must be at least 16 characters");
  const placeholderToken = production && metricsToken !== undefined ? placeholderSecretReason(metricsToken) : undefined;
  if (placeholderToken)
    throw new ConfigError(`METRICS_TOKEN is too weak for NODE_ENV=production: ${placeholderToken}; use a random one, e.g. from \`openssl rand -hex 32\``);
  const metricsPublic = flag(env, "METRICS_PUBLIC", false);
  // /metrics names every route and company-visible backlog: in production it is closed unless someone chose otherwise.
  if (production && metricsToken === undefined && !metricsPublic) {
    throw new ConfigError(
      "METRICS_TOKEN is required when NODE_ENV=production (at least 16 characters, e.g. from `openssl rand -hex " +
      "16`); set METRICS_PUBLIC=1 to serve /metrics without a token");
  }
  const databaseUrl = postgresUrl(env.DATABASE_URL, production);
  const deliveryLeaseSeconds = integer(env, "DELIVERY_LEASE_SECONDS", 30, 1, 3600);
  const offerWatchMs = integer(env, "OFFER_WATCH_MS", 5000, 50, 20_000);
  const reusePort = flag(env, "REUSE_PORT", false);
  // Processes sharing a port must share one database: each SQLite file would take a share of the traffic.
  if (reusePort && databaseUrl === undefined)
    throw new ConfigError("REUSE_PORT=1 needs DATABASE_URL (PostgreSQL): processes sharing a port must share one database, and SQLite is one process's");
  let mapTiles: MapTiles;
  try {
    mapTiles = mapTilesFrom(env.CONSOLE_MAP_TILES, env.CONSOLE_MAP_ATTRIBUTION);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  let demoData: boolean | undefined;
  if (env.DEMO_DATA !== undefined && env.DEMO_DATA !== "") {
    if (env.DEMO_DATA !== "0" && env.DEMO_DATA !== "1") throw new ConfigError(`DEMO_DATA must be 1 or 0, got "${env.DEMO_DATA}"`);
    demoData = env.DEMO_DATA === "1";
    // The demo companies share a published password: never in production.
    if (demoData && production) throw new ConfigError("DEMO_DATA=1 is not allowed with NODE_ENV=production (the demo accounts' password is public)");
  }

  const passwordHashCost = (env.PASSWORD_HASH_COST?.trim() || "owasp") as PasswordHashCost;
  if (!Object.hasOwn(PASSWORD_HASH_COSTS, passwordHashCost))
    throw new ConfigError(`PASSWORD_HASH_COST must be owasp or test, got "${env.PASSWORD_HASH_COST}"`);
  // The test cost makes a stolen hash cheap to attack: never in production.
  if (passwordHashCost === "test" && production) throw new ConfigError("PASSWORD_HASH_COST=test is not allowed with NODE_ENV=production");

  let jwtSecret = env.JWT_SECRET ?? "";
  if (jwtSecret) {
    if (Buffer.byteLength(jwtSecret, "utf8") < 32) throw new ConfigError("JWT_SECRET must be at least 32 bytes");
    const weak = production ? weakSecretReason(jwtSecret) : undefined;
    if (weak) throw new ConfigError(`JWT_SECRET is too weak for NODE_ENV=production: ${weak}; use a random one, e.g. from \`openssl rand -base64 48\``);
  } else if (production) {
    throw new ConfigError("JWT_SECRET is required when NODE_ENV=production (at least 32 bytes)");
  } else {
    jwtSecret = developmentSecret(dbPath);
  }
  let secretsKey = env.SECRETS_KEY?.trim() ?? "";
  if (secretsKey) {
    if (!SECRETS_KEY_PATTERN.test(secretsKey)) {
      throw new ConfigError("SECRETS_KEY must be 64 hexadecimal characters (32 bytes), e.g. from `openssl rand -hex 32`");
    }
    const weak = production ? weakKeyReason(Buffer.from(secretsKey, "hex")) : undefined;
    if (weak) throw new ConfigError(`SECRETS_KEY is too weak for NODE_ENV=production: ${weak}; use a random one, e.g. from \`openssl rand -hex 32\``);
  } else if (production) {
    throw new ConfigError("SECRETS_KEY is required when NODE_ENV=production (64 hexadecimal characters, e.g. from `openssl rand -hex 32`)");
  } else {
    secretsKey = developmentSecretsKey(dbPath);
  }
  return {
    ...{ port, platformPort, host, dbPath, jwtSecret, tokenTtlSeconds, demoData, logLevel, maxBodyBytes, rateLimits },
    ...{ idleTimeoutSeconds, trustProxy, production, outboundAllowPrivate, secretsKey, metricsToken, metricsPublic },
    ...{ databaseUrl, deliveryLeaseSeconds, offerWatchMs, mapTiles, reusePort, storeBounds, passwordHashCost },
    gazetteerWarm: flag(env, "GAZETTEER_WARM", true),
    geocoderUrl: httpUrl("GEOCODER_URL", env.GEOCODER_URL, "of a /search endpoint (https://photon.example/api)"),
    geocoderTimeoutMs: integer(env, "GEOCODER_TIMEOUT_MS", 2000, 100, 10_000),
    flightStatus: flightStatusConfig(env),
  };
}

/** The flight-status poller's settings, when FLIGHT_STATUS_KEY is set; the key never appears in a message. */
function flightStatusConfig(env: Record<string, string | undefined>): FlightStatusConfig | undefined {
  const apiKey = env.FLIGHT_STATUS_KEY?.trim();
  if (!apiKey) return undefined;
  return {
    url: httpUrl("FLIGHT_STATUS_URL", env.FLIGHT_STATUS_URL, "(AeroAPI's base)") ?? "https://aeroapi.flightaware.com/aeroapi",
    apiKey,
    windowHours: integer(env, "FLIGHT_STATUS_WINDOW_HOURS", 6, 1, 48),
    perMinute: integer(env, "FLIGHT_STATUS_PER_MINUTE", 10, 1, 6000),
    intervalSeconds: integer(env, "FLIGHT_STATUS_INTERVAL_SECONDS", 600, 1, 86_400),
    timeoutMs: integer(env, "FLIGHT_STATUS_TIMEOUT_MS", 5000, 100, 60_000),
  };
}

/** An optional absolute http(s) URL, checked. The message never repeats it: its query may carry a key. */
function httpUrl(name: string, raw: string | undefined, what: string): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http or https URL ${what}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${name} must be an http or https URL`);
  return value;
}

/**
 * DATABASE_URL checked: a postgres:// or postgresql:// URL naming a host or a socket directory (`?host=`, `?path=`).
 * The messages never repeat the URL, which may carry a password.
 */
function postgresUrl(raw: string | undefined, production: boolean): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const problem = "DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${problem}; it is not a URL`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new ConfigError(`${problem}; it has another scheme`);
  if (!url.hostname && !url.searchParams.get("host") && !url.searchParams.get("path")) throw new ConfigError(`${problem}; it names no host`);
  // The database password is a secret like the others (docs/security.md#placeholder-secrets): no template's placeholder.
  const password = url.searchParams.get("password") ?? safeDecode(url.password);
  const placeholder = production && password ? placeholderSecretReason(password) : undefined;
  if (placeholder) throw new ConfigError(`DATABASE_URL's password is too weak for NODE_ENV=production: ${placeholder}`);
  return value;
}

/** A URL's percent-encoded part as text (as it is when it does not decode). */
function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The development JWT secret kept beside the database (or a fresh one for an in-memory database). */
function developmentSecret(dbPath: string): string {
  return keptBeside(dbPath, ".jwt-secret", () => Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url"), (kept) => kept.length >= 32);
}

/** The development secrets key kept beside the database (`.secrets-key`, mode 0600), created on first use. */
export function developmentSecretsKey(dbPath: string): string {
  return keptBeside(dbPath, ".secrets-key", SecretBox.newKey, (kept) => SECRETS_KEY_PATTERN.test(kept));
}

/** A value kept in a file beside the database (mode 0600), created on first use; fresh for an in-memory database. */
function keptBeside(dbPath: string, name: string, fresh: () => string, valid: (kept: string) => boolean): string {
  if (dbPath === ":memory:") return fresh();
  const file = join(dirname(resolve(dbPath)), name);
  if (existsSync(file)) {
    const kept = readFileSync(file, "utf8").trim();
    if (valid(kept)) {
      chmodSync(file, 0o600);
      return kept;
    }
  }
  const value = fresh();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, value, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}
