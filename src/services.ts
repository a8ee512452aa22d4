import { watchOffers } from "../domain/usecases/offer-watch";
import { STORE_BOUNDS, type StoreBounds } from "../domain/events/store-bounds";
import type { Clock } from "../domain/ports";
import type { SqliteStorage } from "./storage/sqlite";
import { createLogger } from "../adapters/logging";
import { LocalRateBudgets } from "../adapters/http/rate-limit";
import { BOOKING_WRITER_STATEMENTS } from "../adapters/sqlite/booking-rows";
import { BookingWriter } from "../adapters/sqlite/booking-writer";
import { systemClock, type ServiceConfig, type ServiceOptions, type Wiring } from "./wiring/context";
import { wireStorage, type Database } from "./wiring/storage";
import { wireReferenceData } from "./wiring/reference";
import { wireAccounts } from "./wiring/accounts";
import { wireFleet } from "./wiring/fleet";
import { wireOperations } from "./wiring/operations";
import { wireEvents } from "./wiring/events";
import { wireDelivery } from "./wiring/delivery";
import { wireIntegration } from "./wiring/integration";
import { wireTrips } from "./wiring/trips";
import { wireRates } from "./wiring/rates";
import { wireNetwork } from "./wiring/network";
import { wireSandbox } from "./wiring/sandbox";
import { wirePlaces } from "./wiring/places";
import { wireSettlement } from "./wiring/settlement";
import { wireFlights } from "./wiring/flights";

export { systemClock, type OutboundSettings, type ServiceConfig, type ServiceOptions } from "./wiring/context";

/** Every port wired to its adapter: the one place that knows which implementation serves which port. */
export function createServices(database: Database, config: ServiceConfig, clock: Clock = systemClock, options: ServiceOptions = {}) {
  const logger = options.logger ?? createLogger("silent");
  const bounds: StoreBounds = { ...STORE_BOUNDS, ...config.storeBounds };
  const stored = wireStorage(database, config, bounds, logger, () => delivery.worker.wake());
  const { storage } = stored;
  const base: Wiring = { storage, config, clock, logger, options };
  // Budgets in the database where instances share it, else in this process.
  const rateBudgets = storage.rateBudgets ?? new LocalRateBudgets();
  const reference = wireReferenceData();
  const accounts = wireAccounts(base);
  const fleet = wireFleet(base, reference);
  const { fleetIndex, availability: { holds } } = fleet;
  const operations = wireOperations(base, { ...fleet, rateBudgets });
  const events = wireEvents(base, reference);
  const { tracking } = events;
  const delivery = wireDelivery(base, { currencies: reference.currencies, metrics: operations.metrics });
  const integration = wireIntegration(base, { guard: delivery.guard, rateBudgets });
  const { places } = wirePlaces(base, { reference, guard: delivery.guard });
  const { quoting, trips } = wireTrips(base, { reference, places, fleetIndex, holds, tracking, worker: delivery.worker, rateBudgets });
  const { flightPoll } = wireFlights(base, { trips, guard: delivery.guard, rateBudgets });
  const { rates, fx } = wireRates(base, reference);
  const network = wireNetwork(base, { reference, fleetIndex, holds, trips, fx, bounds });
  const sandbox = wireSandbox(base, { manage: trips.manage, flights: trips.flights, tracking, airports: reference.airports });
  const settlement = wireSettlement(base, { timeZones: trips.send.timeZones, worker: delivery.worker });
  return {
    logger,
    clock,
    airports: reference.airports,
    ...stored,
    ...accounts,
    ...fleet,
    ...operations,
    ...events,
    ...delivery,
    ...integration,
    places,
    quoting,
    trips,
    flightPoll,
    rates,
    fx,
    ...network,
    ...sandbox,
    ...settlement,
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

/** How often the offer watch looks for lapsed and moving offers by default (ms): well within docs/terms.md#the-acceptance-deadline-acceptby's 30 s. */
export const OFFER_WATCH_INTERVAL_MS = 5000;

/**
 * Runs the offer watch on a timer (docs/terms.md#the-acceptance-deadline-acceptby,
 * docs/terms.md#the-cascade-fallback): a pass at start (deadlines that passed while the service was
 * down), then every `intervalMs`; one pass at a time. Returns a stop function that awaits the pass under way.
 */
export function startOfferWatch(services: Services, intervalMs = OFFER_WATCH_INTERVAL_MS): () => Promise<void> {
  const onError = (err: unknown, transactionId: string) => services.logger.warn({ err, transactionId }, "offer watch: handling a due booking failed; retried");
  return repeatPasses(
    () => watchOffers(services.offers, onError).catch((err) => services.logger.error({ err }, "offer watch pass failed; trying again")),
    intervalMs,
  );
}

/** How often the flight-status poller looks for flights to ask about by default (ms); each flight waits its interval. */
export const FLIGHT_POLL_TICK_MS = 15_000;

/**
 * Runs the flight-status poller on a timer (docs/flights.md#the-flight-status-poller), when FLIGHT_STATUS_KEY set
 * one up: a pass at start, then every `tickMs` (at most FLIGHT_POLL_TICK_MS, and no longer than a flight's interval);
 * one pass at a time. Returns a stop function that awaits the pass under way.
 */
export function startFlightPoller(services: Services, tickMs?: number): () => Promise<void> {
  const poll = services.flightPoll;
  if (!poll) return async () => {};
  return repeatPasses(
    () =>
      poll.pass().catch((err) => services.logger.error({ err: err instanceof Error ? err.message : String(err) }, "flight status pass failed; trying again")),
    tickMs ?? Math.min(FLIGHT_POLL_TICK_MS, poll.intervalSeconds * 1000),
  );
}

/** `pass` now, then `intervalMs` after each pass ends; the stop function awaits the pass under way. */
function repeatPasses(pass: () => Promise<unknown>, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout>;
  const loop = async () => {
    if (stopped) return;
    running = pass();
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
