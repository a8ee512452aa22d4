import type { Config } from "../config";
import type { Storage } from "../storage/storage";
import type { Logger } from "../../adapters/logging";
import type { WorkerOptions } from "../../adapters/delivery/worker";
import type { RateLimits } from "../../adapters/http/rate-limit";
import type { Resolver } from "../../adapters/delivery/outbound-guard";
import type { LiveHubOptions } from "../../adapters/events/live-hub";
import type { StoreBounds } from "../../domain/events/store-bounds";
import type { Clock } from "../../domain/ports";
import type { SandboxSchedule, SandboxTrip } from "../../domain/usecases/sandbox-dispatch";

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/**
 * Ids of outbox rows and live events: time-ordered (UUIDv7), so each lands at the end of its table's key index rather
 * than on a random page — a lapse pass writes thousands of event bodies in a few commits.
 */
export const newEventId = () => Bun.randomUUIDv7();

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
  /** Bookings whose flight the sandbox dispatcher reports late (the demo's airport pickup). */
  sandboxFlightDelay?: (trip: SandboxTrip) => boolean;
  /** Event stream tuning (tests make the heartbeat and the bounds small). */
  events?: Partial<LiveHubOptions>;
}

/** What decides where the service may send: the guard refuses private targets unless allowed, and http in production. */
export type OutboundSettings = Partial<Pick<Config, "outboundAllowPrivate" | "production">>;

/** What the services read of the configuration (tests and the CLI give only some of it). */
export type ServiceConfig = Pick<Config, "jwtSecret" | "tokenTtlSeconds"> &
  Partial<Pick<Config, "maxBodyBytes" | "passwordHashCost" | "geocoderUrl" | "geocoderTimeoutMs" | "flightStatus">> & {
    rateLimits?: RateLimits;
    secretsKey?: string;
    storeBounds?: Partial<StoreBounds>;
  } & OutboundSettings;

/** What every wiring function is given: the storage, the configuration, the clock, the log and the options. */
export interface Wiring {
  storage: Storage;
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  options: ServiceOptions;
}
