import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { buildApp } from "../../src/app";
import { createServices, type Services, type ServiceConfig } from "../../src/services";
import type { SqliteStorage } from "../../src/storage/sqlite";
import { postgresStorage, type PostgresStorage } from "../../src/storage/postgres";
import { openPostgres } from "../../adapters/postgres/db";
import { ON_POSTGRES, takeDatabase } from "./pg-databases";
import { developmentSecretsKey } from "../../src/config";
import { configuredDatabase, migrate, openDatabase, type Db } from "../../adapters/sqlite/db";
import { createLogger, type Logger } from "../../adapters/logging";
import type { Clock } from "../../domain/ports";
import type { RateLimits } from "../../adapters/http/rate-limit";
import type { WorkerOptions } from "../../adapters/delivery/worker";
import type { Resolver } from "../../adapters/delivery/outbound-guard";
import type { SandboxSchedule, SandboxTrip } from "../../domain/usecases/sandbox-dispatch";
import type { Channel, NewOutboxMessage } from "../../domain/delivery/ports";
import type { LiveHubOptions } from "../../adapters/events/live-hub";

/** On the PostgreSQL run: the database each `dbPath` stands for, so a harness reopened on a path finds what the first wrote. */
const postgresByPath = new Map<string, string>();

/**
 * The environment that points a CLI run or a `serve` process at the database `dbPath` stands for: on the PostgreSQL
 * run a database of the throwaway cluster (the same one for the same path, and the one a harness on it uses).
 */
export function databaseEnv(dbPath: string): Record<string, string> {
  if (!ON_POSTGRES) return { DB_PATH: dbPath };
  let url = postgresByPath.get(dbPath);
  if (!url) postgresByPath.set(dbPath, (url = takeDatabase()));
  return { DATABASE_URL: url };
}

/** Rows of plain SQL (`?` placeholders) from the database `databaseEnv(dbPath)` points at. */
export async function databaseRows<T = Record<string, any>>(dbPath: string, sqlText: string, ...params: unknown[]): Promise<T[]> {
  const url = databaseEnv(dbPath).DATABASE_URL;
  if (!url) {
    const sqlite = new Database(dbPath, { readonly: true });
    try {
      return sqlite.query(sqlText).all(...(params as never[])) as T[];
    } finally {
      sqlite.close();
    }
  }
  const client = new SQL(url, { max: 1 });
  try {
    return [...((await client.unsafe(numbered(sqlText), params)) as T[])];
  } finally {
    await client.close();
  }
}

/** SQL text with `?` placeholders as PostgreSQL's `$1`, `$2`… */
function numbered(sqlText: string): string {
  let n = 0;
  return sqlText.replace(/\?/g, () => `$${++n}`);
}

type Handler = (request: Request) => Response | Promise<Response>;

/**
 * A request answered as the listening service answers it: the routes given to Bun's own router (the hot routes'
 * lean handlers) first, for their exact path and method, then the app.
 */
export function routed(app: { handle: Handler; config: { serve?: unknown } }, request: Request): Promise<Response> {
  const routes = (app.config.serve as { routes?: Record<string, Record<string, Handler>> } | undefined)?.routes;
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  const query = url.indexOf("?", start);
  const native = routes?.[url.slice(start, query < 0 ? url.length : query)]?.[request.method];
  return Promise.resolve(native ? native(request) : app.handle(request));
}

function migrated(db: Db): Db {
  migrate(db);
  return db;
}

let migratedImage: Uint8Array | undefined;
/**
 * A new in-memory database as openDatabase(":memory:") and migrate make it: a copy of one this process migrated once
 * (the migrations cost each harness ~8 ms of CPU, a copy a tenth of a millisecond).
 */
function migratedInMemory(): Db {
  if (!migratedImage) {
    const template = migrated(openDatabase(":memory:"));
    migratedImage = template.$client.serialize();
    template.$client.close();
  }
  return configuredDatabase(Database.deserialize(migratedImage, { strict: true }));
}

/** A fast delivery schedule for tests: 4 attempts 50 ms apart, a 500 ms partner timeout. */
export const FAST_DELIVERY: Partial<WorkerOptions> = { retryDelay: (n) => (n < 4 ? 0.05 : undefined), timeoutMs: 500, idleMs: 50 };

export const TEST_JWT_SECRET = "test-secret-that-is-at-least-32-bytes-long!";
export const TEST_SECRETS_KEY = "0f".repeat(32);

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public t = 1_790_000_000) {}
  now(): number {
    return this.t;
  }
  advance(seconds: number): void {
    this.t += seconds;
  }
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * The whole service on a real SQLite database (`:memory:` unless a path is given), driven through HTTP
 * with app.handle — the same routes, validation and error mapping as production.
 */
export function createHarness(
  options: {
    dbPath?: string;
    clock?: Clock;
    maxBodyBytes?: number;
    delivery?: Partial<WorkerOptions>;
    rateLimits?: RateLimits;
    /** Per-company store bounds (docs/security.md#per-company-store-bounds), small in tests. */
    storeBounds?: ServiceConfig["storeBounds"];
    outboundAllowPrivate?: boolean;
    resolver?: Resolver;
    production?: boolean;
    /** argon2id's cost: the test cost unless a test needs the service's own (PASSWORD_HASH_COST). */
    passwordHashCost?: "owasp" | "test";
    metricsToken?: string;
    sandbox?: Partial<SandboxSchedule>;
    /** Bookings whose flight the sandbox dispatcher reports late (the demo's airport pickup). */
    sandboxFlightDelay?: (trip: SandboxTrip) => boolean;
    events?: Partial<LiveHubOptions>;
    /** Challenge webhook URLs on loopback too (they are trusted without one otherwise). */
    challengePrivateWebhooks?: boolean;
    /** GEOCODER_URL and GEOCODER_TIMEOUT_MS (docs/places.md#the-geocoder): a geocoder the test serves on loopback. */
    geocoderUrl?: string;
    geocoderTimeoutMs?: number;
    /** FLIGHT_STATUS_* (docs/flights.md#the-flight-status-poller): a flight-status API the test serves on loopback. */
    flightStatus?: ServiceConfig["flightStatus"];
    /** Where the service logs (silent by default). */
    logger?: Logger;
    /** On PostgreSQL: the pool's connections (default 4) and the outbox lease (default 5 s); benches pass production's. */
    postgres?: { pool?: number; leaseSeconds?: number };
  } = {},
) {
  // On the suite's PostgreSQL run every harness gets a fresh database of the throwaway cluster; `db` (SQLite) is
  // then an empty in-memory database nothing uses (not even migrated: that cost each harness ~8 ms of CPU).
  const db: Db = ON_POSTGRES ? openDatabase(":memory:") : options.dbPath ? migrated(openDatabase(options.dbPath)) : migratedInMemory();
  let pg: PostgresStorage | undefined;
  // Test partners listen on 127.0.0.1: the outbound guard is lifted explicitly unless a test checks it.
  const outboundAllowPrivate = options.outboundAllowPrivate ?? true;
  // The key the CLI would use for this database file, so a CLI run on it reads what the harness sealed.
  const secretsKey = options.dbPath ? developmentSecretsKey(options.dbPath) : TEST_SECRETS_KEY;
  const pgUrl = ON_POSTGRES ? (options.dbPath ? databaseEnv(options.dbPath).DATABASE_URL : takeDatabase()) : undefined;
  const database = pgUrl
    ? (announcerFor: Parameters<typeof postgresStorage>[2], secrets: Parameters<typeof postgresStorage>[1], logger: Parameters<typeof postgresStorage>[3]) =>
        (pg = postgresStorage(openPostgres(pgUrl, { max: options.postgres?.pool ?? 4 }), secrets, announcerFor, logger, {
          leaseSeconds: options.postgres?.leaseSeconds ?? 5,
        }))
    : db;
  const services: Services = createServices(database, { jwtSecret: TEST_JWT_SECRET, tokenTtlSeconds: 3600, maxBodyBytes: options.maxBodyBytes, rateLimits: options.rateLimits, storeBounds: options.storeBounds, outboundAllowPrivate, secretsKey, production: options.production, passwordHashCost: options.passwordHashCost ?? "test", geocoderUrl: options.geocoderUrl, geocoderTimeoutMs: options.geocoderTimeoutMs, flightStatus: options.flightStatus }, options.clock, {
    logger: options.logger,
    delivery: options.delivery,
    resolver: options.resolver,
    sandbox: options.sandbox,
    sandboxFlightDelay: options.sandboxFlightDelay,
    events: options.events,
    challengePrivateWebhooks: options.challengePrivateWebhooks,
  });
  const app = buildApp(services, { logger: createLogger("silent"), maxBodyBytes: options.maxBodyBytes ?? 1048576, readiness: { ready: true }, metricsToken: options.metricsToken });

  // A served instance answers only once its storage has started (src/backend.ts awaits it; on PostgreSQL that is the
  // fleet mirror's first read): requests through the harness wait for it too, so none races the start-up.
  const startedUp = services.started.catch(() => undefined);

  async function request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    await startedUp;
    const headers: Record<string, string> = { ...opts.headers };
    let body: BodyInit | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await routed(app, new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  let counter = 0;
  /** Registers a company (live) and returns its netid and password. */
  async function registerCompany(overrides: Record<string, string> = {}) {
    counter++;
    const n = `${Date.now() % 100000}${counter}`;
    const password = "correct horse battery staple";
    const payload = {
      name: `Test Company ${n}`,
      netid: `TEST-${n}`,
      mainEmail: `ops${n}@example.com`,
      password,
      confirmPassword: password,
      mainPhone: `+1212555${String(1000 + counter).slice(-4)}`,
      coType: "IO",
      ...overrides,
    };
    const res = await request("POST", "/api/company/register", { body: payload });
    if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${res.text}`);
    return { netid: res.body.data.netid as string, password: payload.password, email: payload.mainEmail };
  }

  async function coreToken(uid: string, pw: string): Promise<string> {
    const res = await request("POST", "/api/token", { body: { uid, pw } });
    if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
    return res.body.token;
  }

  async function platformToken(uid: string, pw: string): Promise<string> {
    const res = await request("POST", "/Platform.svc/getToken2", { body: { uid, pw } });
    if (res.status !== 200) throw new Error(`getToken2 failed: ${res.status} ${res.text}`);
    return res.body;
  }

  /** Resolves once every fleet change made so far is visible to search (the index rebuilds off the request path). */
  async function indexed(): Promise<void> {
    await services.fleetIndex.whenFresh();
  }

  /** Stops the delivery worker (its attempts under way are recorded first), then closes the database. */
  async function close(): Promise<void> {
    await services.audit.flush();
    await services.worker.stop();
    services.liveHub.close();
    await services.positions.close();
    await services.storage.liveEvents.close();
    services.fleetIndex.close();
    db.$client.close();
    await pg?.close();
  }

  /** Rows of plain SQL (`?` placeholders) both databases understand, from whichever database the service runs on. */
  async function rows<T = Record<string, any>>(sqlText: string, ...params: unknown[]): Promise<T[]> {
    if (pg) {
      const result = [...((await pg.db.$client.unsafe(numbered(sqlText), params)) as T[])];
      // A test's own write holds at once, as the instance's own writes do (others' arrive by notification).
      pg.accountCache.clear();
      return result;
    }
    return db.$client.query(sqlText).all(...(params as never[])) as T[];
  }

  /**
   * Bytes a table takes in the database: on PostgreSQL its files (heap, TOAST and indexes, so row versions not yet
   * vacuumed included); on SQLite its pages (dbstat; pages it freed are not its own any more).
   */
  async function tableBytes(table: string): Promise<number> {
    const sqlText = pg ? "SELECT pg_total_relation_size(?::regclass) AS n" : "SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name = ?";
    const [row] = await rows<{ n: number | string }>(sqlText, table);
    return Number(row.n);
  }

  /** How many rows a table holds. */
  async function count(table: string): Promise<number> {
    const [row] = await rows<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(row.n);
  }

  /** Runs a statement with foreign keys unchecked (a row whose parent does not exist). */
  async function execUnchecked(sqlText: string, ...params: unknown[]): Promise<void> {
    if (pg) {
      await pg.db.$client.begin(async (tx) => {
        await tx.unsafe("SET LOCAL session_replication_role = replica");
        await tx.unsafe(numbered(sqlText), params);
      });
      pg.accountCache.clear();
      return;
    }
    db.$client.exec("PRAGMA foreign_keys = OFF");
    try {
      db.$client.query(sqlText).run(...(params as never[]));
    } finally {
      db.$client.exec("PRAGMA foreign_keys = ON");
    }
  }

  /** Adds an outbox message as a booking change would, for tests of the delivery worker. */
  async function enqueue(m: NewOutboxMessage, at: number): Promise<void> {
    await rows(
      "INSERT INTO outbox_messages (event_id, channel, event_type, transaction_id, target_netid, url, body, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)",
      m.eventId, m.channel, m.eventType, m.transactionId, m.targetNetid, m.url, m.body, at, at,
    );
  }

  /** Puts a booking's failed messages on a channel back in the queue (attempts reset); how many. */
  async function requeueFailed(transactionId: string, channel: Channel, at: number): Promise<number> {
    const failed = (await services.outbox.forBooking(transactionId)).filter((m) => m.channel === channel && m.status === "failed");
    for (const m of failed) await services.outbox.requeue(m.id, at);
    return failed.length;
  }

  /** The environment that points a CLI run at this harness's database. */
  const cliEnv: Record<string, string> = options.dbPath ? databaseEnv(options.dbPath) : pgUrl ? { DATABASE_URL: pgUrl } : {};

  /** The storage as its SQLite classes (for tests that reach below the ports). */
  const storage = services.storage as SqliteStorage;
  return { db, services, storage, app, request, registerCompany, coreToken, platformToken, indexed, close, rows, count, tableBytes, execUnchecked, enqueue, requeueFailed, cliEnv };
}

export type Harness = ReturnType<typeof createHarness>;
