import { Elysia } from "elysia";
import type { Config } from "./config";
import { IMPORT_BODY_BYTES } from "./config";
import type { Db } from "../adapters/sqlite/db";
import type { AnnouncerFor, Storage } from "./storage/storage";
import { sqliteStorage, type SqliteStorage } from "./storage/sqlite";
import { Argon2idHasher } from "../adapters/security/password";
import { CoreTokens } from "../adapters/security/tokens";
import { isCommonPassword } from "../adapters/security/common-passwords";
import { Authenticator, authMacros } from "../adapters/http/auth";
import { edge } from "../adapters/http/edge";
import { platformPathFolding, type PlatformRoot } from "../adapters/http/platform-paths";
import { docs, type DocsRoot } from "../adapters/http/docs";
import { health, type Readiness } from "../adapters/http/health";
import { coreAccounts, type AddressOf } from "../adapters/http/core/accounts";
import { platformTokens } from "../adapters/http/platform/tokens";
import { companyOfRequest } from "../adapters/http/request-context";
import { createLogger, type Logger } from "../adapters/logging";
import { DeliveryWorker, type WorkerOptions } from "../adapters/delivery/worker";
import { newWebhookSecret } from "../adapters/delivery/signing";
import { coreIntegration } from "../adapters/http/core/integration";
import { coreWebhookDeliveries } from "../adapters/http/core/webhook-deliveries";
import { retryDelaySeconds } from "../domain/delivery/retry";
import { DEFAULT_BOOKING_LIMITS, type BookingLimits } from "../domain/trips/booking-bounds";
import { attemptOutcomes, changeAnnouncer, type DeliveryDeps } from "../domain/usecases/deliver-booking";
import { platformHelp } from "../adapters/http/platform/help";
import { platformDelivery } from "../adapters/http/platform/delivery";
import { coreQuotes } from "../adapters/http/core/quotes";
import { indexNetworkPricing } from "../domain/quotes/network-pricing";
import type { NetworkQuoteDeps } from "../domain/usecases/network-quote";
import { coreReservations } from "../adapters/http/core/reservations";
import { coreCompany } from "../adapters/http/core/company";
import { platformTrips } from "../adapters/http/platform/trips";
import { BOOKING_WRITER_STATEMENTS } from "../adapters/sqlite/booking-rows";
import { BookingWriter } from "../adapters/sqlite/booking-writer";
import { PackagedAirportDirectory } from "../adapters/airports/directory";
import { PackagedTimeZones } from "../adapters/airports/time-zones";
import type { Clock } from "../domain/ports";
import { KdFleetSearchIndex } from "../adapters/geo/fleet-index";
import { PackagedCurrencyDirectory } from "../adapters/currencies/directory";
import { PackagedGazetteer } from "../adapters/gazetteer/cities";
import { servingFleetOf } from "../domain/trips/service-area";
import { coreFleet } from "../adapters/http/core/fleet";
import { coreFleetSearch } from "../adapters/http/core/fleet-search";
import { fastFleetSearch } from "../adapters/http/core/fleet-search-fast";
import { SearchAnswerCache } from "../domain/fleet/answer-cache";
import { ChallengeVerifier } from "../adapters/delivery/webhook-verifier";
import { callerCompany, LocalRateBudgets, RateLimiter, writeRateLimit, type RateLimits } from "../adapters/http/rate-limit";
import { OutboundGuard, type Resolver } from "../adapters/delivery/outbound-guard";
import { SecretBox } from "../adapters/security/secrets";
import { ChauffeurTracking } from "../domain/usecases/track-chauffeur";
import { coreTracking } from "../adapters/http/core/tracking";
import { platformTracking } from "../adapters/http/platform/tracking";
import { corePartners } from "../adapters/http/core/partners";
import { ServiceMetrics } from "../adapters/metrics/prometheus";
import { metricsRoute } from "../adapters/http/metrics";
import { consoleApp } from "../adapters/console/routes";
import type { MapTiles } from "../adapters/console/tiles";
import { LiveHub, type LiveHubOptions } from "../adapters/events/live-hub";
import { coreEvents } from "../adapters/http/core/events";
import { bookingLiveEvents, type NewLiveEvent } from "../domain/events/live-events";
import { DEFAULT_SANDBOX_SCHEDULE, SandboxDispatcher, type SandboxSchedule, type SandboxTrip } from "../domain/usecases/sandbox-dispatch";

/** Account checks need no credential: a client address may make 20 a minute, so the check cannot enumerate accounts. */
const ACCOUNT_CHECKS_PER_MINUTE = 20;
/** Bytes of recent fleet search answers kept (serialised) for the current index generation. */
const SEARCH_ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

let sharedAirports: PackagedAirportDirectory | undefined;
/** The airport directory is read-only reference data: load it once per process. */
function airportDirectory(): PackagedAirportDirectory {
  return (sharedAirports ??= new PackagedAirportDirectory());
}

export interface ServiceOptions {
  logger?: Logger;
  /** Delivery worker tuning; production uses a 10 s timeout, doubling backoff and 10 attempts. */
  delivery?: Partial<WorkerOptions>;
  /** Challenge webhook URLs on private addresses too (allowed only under OUTBOUND_ALLOW_PRIVATE; trusted otherwise). */
  challengePrivateWebhooks?: boolean;
  /** How delivery and webhook host names are resolved (tests give a fixed answer); the system resolver otherwise. */
  resolver?: Resolver;
  /** The sandbox dispatcher's pace (tests use a fast one). */
  sandbox?: Partial<SandboxSchedule>;
  /** Bookings the sandbox dispatcher leaves alone. */
  sandboxSkip?: (trip: SandboxTrip) => boolean;
  /** Event stream tuning (tests make the heartbeat and the bounds small). */
  events?: Partial<LiveHubOptions>;
}

/** What decides where the service may send: the guard refuses private targets unless allowed, and http in production. */
export type OutboundSettings = Partial<Pick<Config, "outboundAllowPrivate" | "production">>;

/** Every port wired to its adapter: the one place that knows which implementation serves which port. */
export function createServices(
  database: Db | ((announcerFor: AnnouncerFor, secrets: SecretBox, logger: Logger) => Storage),
  config: Pick<Config, "jwtSecret" | "tokenTtlSeconds"> & Partial<Pick<Config, "maxBodyBytes">> & { rateLimits?: RateLimits; secretsKey?: string } & OutboundSettings,
  clock: Clock = systemClock,
  options: ServiceOptions = {},
) {
  const logger = options.logger ?? createLogger("silent");
  // Without a key (benchmarks, throwaway databases) secrets are sealed with one that lives as long as the process.
  const secrets = new SecretBox(config.secretsKey ?? SecretBox.newKey());
  const newEventId = () => crypto.randomUUID();
  const announcerFor: AnnouncerFor = (lookups) => ({
    ...changeAnnouncer({ ...lookups, runner: { wake: () => worker.wake() }, newEventId }),
    // Event streams hear of every change (both parties), through the live event log written with it.
    live: (events, booking) => bookingLiveEvents({ positions: lookups.positions, newEventId }, events, booking),
  });
  const storage: Storage = typeof database === "function" ? database(announcerFor, secrets, logger) : sqliteStorage(database, secrets, announcerFor, logger);
  const { companies, users, platformTokens: platformTokenRepo, audit, integrations, outbox, fleet, partnerships, positions, bookings } = storage;
  // On SQLite this is done when the call returns; the backend awaits it before serving.
  const started = storage.start();
  const hasher = new Argon2idHasher();
  const coreTokens = new CoreTokens(config.jwtSecret, config.tokenTtlSeconds);
  const decoyHash = Bun.password.hashSync(crypto.randomUUID(), { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });
  const loginDeps = { users, hasher, throttle: storage.loginThrottle, clock, decoyHash, audit };
  // Without an explicit OUTBOUND_ALLOW_PRIVATE, private and special addresses are refused (CLI, tests, serve).
  const guard = new OutboundGuard({ allowPrivate: config.outboundAllowPrivate === true, requireHttps: config.production === true, resolver: options.resolver });
  const airports = airportDirectory();
  const fleetIndex = new KdFleetSearchIndex({
    source: storage.fleetSource,
    indexFile: storage.indexFile,
    onWorkerFailure: (err) => logger.warn({ err }, "fleet index worker failed; building in-process"),
    onError: (err) => logger.error({ err }, "fleet index rebuild failed; the previous index keeps answering"),
  });
  const searchAnswers = new SearchAnswerCache<Uint8Array>(fleetIndex, SEARCH_ANSWER_CACHE_BYTES);
  // ISO 4217 minor units: quotes, provider updates and partner replies write amounts in them.
  const currencies = new PackagedCurrencyDirectory();
  // Delivery outcomes change the booking in the transaction that records the attempt.
  const worker: DeliveryWorker = new DeliveryWorker(
    outbox,
    integrations,
    attemptOutcomes({ onAttemptFailed: (channel, final) => metrics.deliveryAttemptFailed(channel, final), currencies }),
    { retryDelay: (n) => retryDelaySeconds(n), timeoutMs: 10_000, concurrency: 8, idleMs: 1000, guard, sharedOutbox: storage.kind === "postgres", ...options.delivery },
    logger,
  );
  // Budgets in the database where instances share it, else in this process.
  const rateBudgets = storage.rateBudgets ?? new LocalRateBudgets();
  const delivery: DeliveryDeps = { outbox, bookings, runner: worker, clock, dueNow: () => Date.now() / 1000, replays: rateBudgets, newEventId };
  // Positions reach the live event log only for companies that follow them (an event stream lately).
  const livePositions = { append: (rows: NewLiveEvent[]) => storage.liveEvents.append(rows.filter((r) => liveHub.follows(r.netid))) };
  const tracking = new ChauffeurTracking({ bookings, companies, integrations, positions, liveEvents: livePositions, newEventId, nowMs: clock === systemClock ? () => Date.now() : () => clock.now() * 1000 });
  // Without configured limits (tests, CLI) nothing is limited; `serve` passes the validated environment.
  const metrics: ServiceMetrics = new ServiceMetrics({
    outbox: () => outbox.backlog(),
    fleetIndex: () => ({ size: fleetIndex.size, builtAtMs: fleetIndex.viewBuiltAtMs }),
    bookingWriterQueue: () => bookings.pendingChanges,
    searchAnswers: () => ({ hits: searchAnswers.hits, misses: searchAnswers.misses, bytes: searchAnswers.sizeBytes }),
  });
  const rateLimiter = new RateLimiter(
    { accountCheckPerMinute: ACCOUNT_CHECKS_PER_MINUTE, ...(config.rateLimits ?? { searchPerMinute: 0, sendTripPerMinute: 0 }) },
    clock === systemClock ? undefined : () => clock.now(),
    rateBudgets,
  );
  // A booking as a whole holds no more than one request body may carry.
  const limits: BookingLimits = { maxBytes: config.maxBodyBytes ?? DEFAULT_BOOKING_LIMITS.maxBytes };
  // What every quote reads: placing the pickup, the provider's serving vehicles (geo index), currency facts.
  const quoting = {
    airports,
    gazetteer: new PackagedGazetteer(),
    servingFleet: servingFleetOf({ index: fleetIndex, fleet: storage.providerFleet }),
    currencies,
    integrations,
  };
  const trips = {
    send: {
      limits,
      bookings,
      companies,
      fleet: storage.providerFleet,
      servingFleet: quoting.servingFleet,
      gazetteer: quoting.gazetteer,
      currencies: quoting.currencies,
      airports,
      timeZones: new PackagedTimeZones(),
      admission: { integrations, partnerships },
      clock,
      // Time-ordered UUIDs (v7: 48-bit ms timestamp, 74 random bits): new bookings append to the primary-key
      // index instead of dirtying a random page each, which makes a group's inserts and commit cheaper.
      newTransactionId: () => Bun.randomUUIDv7(),
      networkQuotes: storage.networkQuotes,
    },
    manage: { bookings, companies, clock, tracking, limits, currencies },
    idempotency: storage.idempotency,
    delivery,
  };
  const liveHub = new LiveHub(storage.liveEvents, options.events, (err) => logger.warn({ err }, "event streams: reading the live event log failed; trying again"), storage.streamRegistry);
  const networkQuotes: NetworkQuoteDeps = {
    quotes: storage.networkQuotes,
    companies,
    admission: trips.send.admission,
    pricing: indexNetworkPricing({ index: fleetIndex, fleet: storage.providerFleet, integrations, airports, gazetteer: quoting.gazetteer, timeZones: trips.send.timeZones, currencies: quoting.currencies }),
    clock,
    newQuoteId: () => Bun.randomUUIDv7(),
    send: trips.send,
  };
  const sandboxes = storage.sandboxes;
  const sandbox = new SandboxDispatcher({
    trips: sandboxes,
    bookings,
    manage: trips.manage,
    tracking,
    callerOf: (netid) => users.findCaller(netid),
    airports,
    nowMs: () => Date.now(),
    schedule: { ...DEFAULT_SANDBOX_SCHEDULE, ...options.sandbox },
    skip: options.sandboxSkip,
    onError: (err, trip) => logger.warn({ err, transactionId: trip.transactionId }, "sandbox dispatcher move failed; retried on the next tick"),
  });
  return {
    logger,
    metrics,
    sandboxes,
    sandbox,
    positions,
    tracking,
    liveHub,
    integrations,
    outbox,
    worker,
    audit,
    guard,
    integration: { integrations, clock, newSecret: newWebhookSecret, audit, targets: guard, verifier: new ChallengeVerifier(guard, 5000, options.challengePrivateWebhooks ?? false), challenges: rateBudgets },
    partnerships,
    partners: { partnerships, companies, clock, audit },
    storage,
    /** Resolves once the storage's start-up work is done (rejects when it failed). */
    started,
    /** The SQLite database, when that is the storage (CLI commands that only SQLite has use it). */
    db: storage.kind === "sqlite" ? (storage as SqliteStorage).db : undefined,
    clock,
    companies,
    users,
    platformTokens: platformTokenRepo,
    coreTokens,
    authenticator: new Authenticator(coreTokens, users, platformTokenRepo, storage.revokedTokens),
    registration: { companies, hasher, clock, isCommonPassword, audit },
    login: loginDeps,
    airports,
    quoting,
    trips,
    networkQuotes,
    fleet,
    fleetIndex,
    rateLimiter,
    manageFleet: { fleet, index: fleetIndex, airports, clock, companies },
    searchFleet: { index: fleetIndex, airports },
    searchAnswers,
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * Moves booking group commits onto the booking writer worker, so no commit's fsync runs on the event loop
 * (see SqliteBookingRepository.useWriter). `serve` calls it; without a database file there is nothing to do.
 */
export async function startBookingWriter(services: Services, onProblem: (message: string) => void, options: { backgroundCheckpoints?: boolean } = {}): Promise<BookingWriter | undefined> {
  if (services.storage.kind !== "sqlite") return undefined;
  const storage = services.storage as SqliteStorage;
  const path = storage.db.$client.filename;
  if (!path || path === ":memory:") return undefined;
  const writer = await BookingWriter.start(path, BOOKING_WRITER_STATEMENTS, { onProblem, autoCheckpoint: !options.backgroundCheckpoints });
  if (writer) storage.bookings.useWriter(writer);
  return writer;
}

/**
 * Runs the sandbox dispatcher on a timer (a few ticks per move, at most every 50 ms and at least every second).
 * Returns a stop function.
 */
export function startSandboxDispatcher(services: Services): () => void {
  const { schedule } = services.sandbox;
  const everyMs = Math.min(1000, Math.max(50, Math.min(schedule.stepMs, schedule.positionMs) / 4));
  const timer = setInterval(() => void services.sandbox.tick().catch((err) => services.logger.error({ err }, "sandbox tick failed")), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface AppOptions {
  logger: Logger;
  maxBodyBytes: number;
  readiness: Readiness;
  /** Client address for throttling; the server's requestIP when listening. */
  addressOf?: AddressOf;
  /** When set, GET /metrics wants `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** The tiles the console's maps load (CONSOLE_MAP_TILES); OpenStreetMap's standard tiles when absent. */
  mapTiles?: MapTiles;
}

const localAddress: AddressOf = () => "local";

function edgeOf(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  return edge({
    maxBodyBytes: options.maxBodyBytes,
    bodyLimits: { "/api/fleet/import": IMPORT_BODY_BYTES },
    logger: options.logger,
    onResponse: (method, route, status, seconds) => services.metrics.observeRequest(method, route, status, seconds),
    onDenied: (request, status, code) =>
      services.audit.record({ type: "access.denied", address: addressOf(request), netid: companyOfRequest.get(request), detail: `${status} ${code} ${request.method} ${new URL(request.url).pathname}` }, services.clock.now()),
  });
}

/**
 * The hot routes, for Bun's own router (see fastFleetSearch): answered without Elysia's global hooks, each doing
 * the edge's duties itself and handing whatever is unusual to `root`, the whole app.
 */
function fastRoutes(services: Services, options: AppOptions, root: () => { handle(request: Request): Response | Promise<Response> }) {
  const search = fastFleetSearch(services.searchFleet, services.authenticator, services.rateLimiter, services.searchAnswers, {
    logger: options.logger,
    onResponse: (method, route, status, seconds) => services.metrics.observeRequest(method, route, status, seconds),
    fallback: (request) => root().handle(request),
  });
  return { "/api/search/fleet": { GET: search } };
}

/** The core surface (/api, health). */
function coreRoutes(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  return new Elysia({ name: "core" })
    .use(edgeOf(services, options))
    .use(writeRateLimit(services.rateLimiter, addressOf, callerCompany(services.authenticator)))
    .use(authMacros(services.authenticator))
    .use(health(options.readiness))
    .use(metricsRoute(services.metrics, options.metricsToken))
    .use(consoleApp(options.mapTiles))
    .use(coreAccounts({ registration: services.registration, login: services.login, coreTokens: services.coreTokens, authenticator: services.authenticator, accountChecks: { companies: services.companies, limiter: services.rateLimiter } }, addressOf, services.rateLimiter))
    .use(coreIntegration(services.authenticator, services.integration, addressOf))
    .use(coreWebhookDeliveries(services.authenticator, services.trips.delivery, { ...services.trips.delivery, integrations: services.integration.integrations, budgets: services.trips.delivery.replays }))
    .use(corePartners(services.partners, services.authenticator))
    .use(coreCompany({ companies: services.companies, sandboxes: services.sandboxes }, services.authenticator))
    .use(coreReservations(services.trips.manage, services.authenticator, services.positions, services.trips.send))
    .use(coreQuotes(services.networkQuotes, services.authenticator, services.trips.idempotency, services.rateLimiter))
    .use(coreFleet(services.manageFleet, services.authenticator))
    .use(coreFleetSearch(services.searchFleet, services.authenticator, services.rateLimiter, services.searchAnswers))
    .use(coreTracking(services.tracking, services.authenticator))
    .use(coreEvents(services.liveHub, services.authenticator));
}

/** The platform surface (/Platform.svc). */
function platformRoutes(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  return new Elysia({ name: "platform" })
    .use(edgeOf(services, options))
    .use(writeRateLimit(services.rateLimiter, addressOf, callerCompany(services.authenticator)))
    .use(authMacros(services.authenticator))
    .use(platformTokens({ login: services.login, platformTokens: services.platformTokens, isCoreToken: (t) => services.authenticator.isCoreToken(t) }, addressOf))
    .use(platformTrips({ ...services.trips, auth: services.authenticator, rateLimiter: services.rateLimiter, positions: services.positions }))
    .use(platformDelivery(services.trips.delivery, services.authenticator))
    .use(platformTracking(services.tracking, services.authenticator))
    .use(platformHelp());
}

// The docs plugin documents the routes of the app it is mounted on, so it goes on the outermost app.

/** The core surface alone, with its docs (served on PORT when PLATFORM_PORT is set). */
export function buildCoreApp(services: Services, options: AppOptions) {
  let root: ReturnType<DocsRoot> | undefined;
  const serve = { routes: fastRoutes(services, options, () => root!) };
  const app = new Elysia({ serve }).use(edgeOf(services, options)).use(docs(() => root!)).use(coreRoutes(services, options));
  root = app;
  return app;
}

/** The platform surface alone, with its docs (served on PLATFORM_PORT when set); its paths match in any letter case. */
export function buildPlatformApp(services: Services, options: AppOptions) {
  let root: PlatformRoot | undefined;
  const app = new Elysia()
    .use(edgeOf(services, options))
    .use(platformPathFolding(() => root!))
    .use(docs(() => root!))
    .use(platformRoutes(services, options));
  root = app;
  return app;
}

/** Both surfaces in one app, as served on PORT when PLATFORM_PORT is not set; platform paths match in any letter case. */
export function buildApp(services: Services, options: AppOptions) {
  let root: PlatformRoot | undefined;
  const serve = { routes: fastRoutes(services, options, () => root!) };
  const app = new Elysia({ serve })
    .use(edgeOf(services, options))
    .use(platformPathFolding(() => root!))
    .use(docs(() => root!))
    .use(coreRoutes(services, options))
    .use(platformRoutes(services, options));
  root = app;
  return app;
}

/** The whole service's app: its type gives a typed client (Eden Treaty's `treaty<App>`). */
export type App = ReturnType<typeof buildApp>;
