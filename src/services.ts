import { HoldIndex } from "../domain/fleet/holds";
import { ProviderRecords } from "../domain/usecases/provider-record";
import type { Config } from "./config";
import type { Db } from "../adapters/sqlite/db";
import type { AnnouncerFor, Storage } from "./storage/storage";
import { sqliteStorage, type SqliteStorage } from "./storage/sqlite";
import { Argon2idHasher } from "../adapters/security/password";
import { CoreTokens } from "../adapters/security/tokens";
import { isCommonPassword } from "../adapters/security/common-passwords";
import { Authenticator } from "../adapters/http/auth";
import { createLogger, type Logger } from "../adapters/logging";
import { DeliveryWorker, type WorkerOptions } from "../adapters/delivery/worker";
import { watchOffers, type OfferWatchDeps } from "../domain/usecases/offer-watch";
import { newWebhookSecret } from "../adapters/delivery/signing";
import { retryDelaySeconds } from "../domain/delivery/retry";
import { DEFAULT_BOOKING_LIMITS, type BookingLimits } from "../domain/trips/booking-bounds";
import { attemptOutcomes, type DeliveryDeps } from "../domain/usecases/deliver-booking";
import { announceChanges } from "../domain/usecases/announce-changes";
import { followedPositions } from "../domain/events/followed-positions";
import { LiveEventBudget, STORE_BOUNDS, type StoreBounds } from "../domain/events/store-bounds";
import { LIVE_EVENT_RETENTION_SECONDS } from "../domain/retention";
import { indexNetworkPricing } from "../domain/pricing/network-pricing";
import type { NetworkQuoteDeps } from "../domain/usecases/network-quote";
import { BOOKING_WRITER_STATEMENTS } from "../adapters/sqlite/booking-rows";
import { BookingWriter } from "../adapters/sqlite/booking-writer";
import { PackagedAirportDirectory } from "../adapters/airports/directory";
import { PackagedTimeZones } from "../adapters/airports/time-zones";
import type { Clock } from "../domain/ports";
import { KdFleetSearchIndex } from "../adapters/geo/fleet-index";
import { PackagedCurrencyDirectory } from "../adapters/currencies/directory";
import { shippedFxTable } from "../adapters/fx/shipped";
import { fxTableInUse, type FxDeps } from "../domain/usecases/fx-rates";
import { PackagedGazetteer } from "../adapters/gazetteer/cities";
import { servingFleetOf } from "../domain/pricing/service-area";
import { SearchAnswerCache } from "../domain/fleet/answer-cache";
import { ChallengeVerifier } from "../adapters/delivery/webhook-verifier";
import { LocalRateBudgets, RateLimiter, type RateLimits } from "../adapters/http/rate-limit";
import { OutboundGuard, type Resolver } from "../adapters/delivery/outbound-guard";
import { SecretBox } from "../adapters/security/secrets";
import { ChauffeurTracking } from "../domain/usecases/track-chauffeur";
import { ServiceMetrics } from "../adapters/metrics/prometheus";
import { LiveHub, type LiveHubOptions } from "../adapters/events/live-hub";
import { EventIdCodec } from "../adapters/events/event-ids";
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

/** What the services read of the configuration (tests and the CLI give only some of it). */
export type ServiceConfig = Pick<Config, "jwtSecret" | "tokenTtlSeconds"> &
  Partial<Pick<Config, "maxBodyBytes" | "passwordHashCost">> & { rateLimits?: RateLimits; secretsKey?: string; storeBounds?: Partial<StoreBounds> } &
  OutboundSettings;

/** Every port wired to its adapter: the one place that knows which implementation serves which port. */
export function createServices(
  database: Db | ((announcerFor: AnnouncerFor, secrets: SecretBox, logger: Logger) => Storage),
  config: ServiceConfig,
  clock: Clock = systemClock,
  options: ServiceOptions = {},
) {
  const logger = options.logger ?? createLogger("silent");
  // Without a key (benchmarks, throwaway databases) secrets are sealed with one that lives as long as the process.
  const secrets = new SecretBox(config.secretsKey ?? SecretBox.newKey());
  const newEventId = () => crypto.randomUUID();
  const bounds: StoreBounds = { ...STORE_BOUNDS, ...config.storeBounds };
  // Made once the storage exists (it answers the stored usage); announcers are only asked after that.
  let liveBudget: LiveEventBudget | undefined;
  const budget = { charge: (netid: string, bytes: number) => liveBudget?.charge(netid, bytes) };
  const announcerFor: AnnouncerFor = (lookups) => announceChanges({ ...lookups, runner: { wake: () => worker.wake() }, newEventId }, budget);
  const storage: Storage = typeof database === "function" ? database(announcerFor, secrets, logger) : sqliteStorage(database, secrets, announcerFor, logger);
  const { companies, users, platformTokens: platformTokenRepo, audit, integrations, outbox, fleet, partnerships, positions, bookings } = storage;
  liveBudget = new LiveEventBudget(storage.liveEvents, bounds.liveEventBytes, LIVE_EVENT_RETENTION_SECONDS);
  // On SQLite this is done when the call returns; the backend awaits it before serving.
  const started = storage.start();
  const hasher = new Argon2idHasher(config.passwordHashCost);
  const coreTokens = new CoreTokens(config.jwtSecret, config.tokenTtlSeconds);
  const decoyHash = hasher.decoyHash();
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
    {
      retryDelay: (n) => retryDelaySeconds(n),
      timeoutMs: 10_000,
      concurrency: 8,
      idleMs: 1000,
      guard,
      sharedOutbox: storage.kind === "postgres",
      ...options.delivery,
    },
    logger,
  );
  // Budgets in the database where instances share it, else in this process.
  const rateBudgets = storage.rateBudgets ?? new LocalRateBudgets();
  const delivery: DeliveryDeps = { outbox, bookings, runner: worker, clock, dueNow: () => Date.now() / 1000, replays: rateBudgets, newEventId };
  const livePositions = followedPositions(storage.liveEvents, (netid) => liveHub.follows(netid));
  const nowMs = clock === systemClock ? () => Date.now() : () => clock.now() * 1000;
  const tracking = new ChauffeurTracking({ bookings, companies, integrations, positions, liveEvents: livePositions, newEventId, nowMs });
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
  // Vehicles held by live bookings and blackouts: quotes read a copy at most a second old, bookings claim in the database.
  const holds = new HoldIndex(storage.vehicleHolds);
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
      holds,
      rateCards: storage.rateCards,
    },
    manage: { bookings, companies, clock, tracking, limits, currencies },
    idempotency: storage.idempotency,
    delivery,
  };
  const onLiveLogError = (err: unknown) => logger.warn({ err }, "event streams: reading the live event log failed; trying again");
  const liveHub = new LiveHub(storage.liveEvents, options.events, onLiveLogError, storage.streamRegistry, new EventIdCodec(config.jwtSecret));
  const fx: FxDeps = { store: storage.fxRates, shipped: shippedFxTable(), clock };
  // Providers' records (CONTRACT §20.5): GET /api/providers/{netid}/record and the network quote's options.
  const providerRecords = new ProviderRecords({ history: storage.providerHistory, companies, clock });
  const networkQuotes: NetworkQuoteDeps = {
    records: providerRecords,
    quotes: storage.networkQuotes,
    bounds,
    companies,
    admission: trips.send.admission,
    pricing: indexNetworkPricing({
      index: fleetIndex,
      fleet: storage.providerFleet,
      integrations,
      airports,
      gazetteer: quoting.gazetteer,
      timeZones: trips.send.timeZones,
      currencies: quoting.currencies,
      holds,
      rateCards: storage.rateCards,
    }),
    clock,
    newQuoteId: () => Bun.randomUUIDv7(),
    send: trips.send,
    fx: { table: () => fxTableInUse(fx), currencies: quoting.currencies },
  };
  const verifier = new ChallengeVerifier(guard, 5000, options.challengePrivateWebhooks ?? false);
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
  // Acceptance deadlines and the cascade (CONTRACT §20.3–4): `serve` runs the watch on a timer (startOfferWatch).
  const offers: OfferWatchDeps = {
    bookings,
    deadlines: storage.offerDeadlines,
    networkQuotes: storage.networkQuotes,
    holds,
    admission: trips.send.admission,
    airports,
    clock,
  };
  return {
    offers,
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
    integration: { integrations, clock, newSecret: newWebhookSecret, audit, targets: guard, verifier, challenges: rateBudgets },
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
    /** Providers' rate cards (GET|PUT|DELETE /api/company/rates, CLI rates import). */
    rates: { rateCards: storage.rateCards, fleet, currencies, airports, clock },
    trips,
    networkQuotes,
    /** The FX table (GET /api/fx, CLI fx import, the network quote's conversion). */
    fx,
    providerRecords,
    fleet,
    fleetIndex,
    rateLimiter,
    manageFleet: { fleet, index: fleetIndex, airports, clock, companies },
    availability: { fleet, holds, clock, newId: () => Bun.randomUUIDv7() },
    searchFleet: { index: fleetIndex, airports, gazetteer: quoting.gazetteer },
    searchAnswers,
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * Moves booking group commits onto the booking writer worker, so no commit's fsync runs on the event loop
 * (see SqliteBookingRepository.useWriter). `serve` calls it; without a database file there is nothing to do.
 */
export async function startBookingWriter(
  services: Services,
  onProblem: (message: string) => void,
  options: { backgroundCheckpoints?: boolean } = {},
): Promise<BookingWriter | undefined> {
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

/** How often the offer watch looks for lapsed and moving offers by default (ms): well within CONTRACT §20.3's 30 s. */
export const OFFER_WATCH_INTERVAL_MS = 5000;

/**
 * Runs the offer watch on a timer (CONTRACT §20.3–4): a pass at start (deadlines that passed while the service was
 * down), then every `intervalMs`; one pass at a time. Returns a stop function that awaits the pass under way.
 */
export function startOfferWatch(services: Services, intervalMs = OFFER_WATCH_INTERVAL_MS): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const onError = (err: unknown, transactionId: string) => services.logger.warn({ err, transactionId }, "offer watch: handling a due booking failed; retried");
  const pass = () => {
    if (stopped) return;
    running = watchOffers(services.offers, onError).catch((err) => services.logger.error({ err }, "offer watch pass failed; trying again"));
  };
  let timer: ReturnType<typeof setTimeout>;
  const loop = async () => {
    pass();
    await running;
    if (!stopped) timer = setTimeout(() => void loop(), intervalMs);
  };
  void loop();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
