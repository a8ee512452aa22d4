import { Elysia } from "elysia";
import { coreProviderRecord } from "../adapters/http/core/provider-record";
import { IMPORT_BODY_BYTES } from "./config";
import { RATE_CARD_MAX_BYTES } from "../domain/pricing/card-checks";
import { authMacros } from "../adapters/http/auth";
import { edge } from "../adapters/http/edge";
import { platformPathFolding, type PlatformRoot } from "../adapters/http/platform-paths";
import { docs, type DocsRoot } from "../adapters/http/docs";
import { health, type Readiness } from "../adapters/http/health";
import { coreAccounts, type AddressOf } from "../adapters/http/core/accounts";
import { platformTokens } from "../adapters/http/platform/tokens";
import { companyOfRequest } from "../adapters/http/request-context";
import type { Logger } from "../adapters/logging";
import { coreIntegration } from "../adapters/http/core/integration";
import { coreWebhookDeliveries } from "../adapters/http/core/webhook-deliveries";
import { platformHelp } from "../adapters/http/platform/help";
import { platformDelivery } from "../adapters/http/platform/delivery";
import { coreQuotes } from "../adapters/http/core/quotes";
import { coreReservations } from "../adapters/http/core/reservations";
import { coreFlights } from "../adapters/http/core/flights";
import { coreCompany } from "../adapters/http/core/company";
import { coreRates } from "../adapters/http/core/rates";
import { coreFx } from "../adapters/http/core/fx";
import { corePlaces } from "../adapters/http/core/places";
import { platformTrips } from "../adapters/http/platform/trips";
import { coreFleet } from "../adapters/http/core/fleet";
import { coreAvailability } from "../adapters/http/core/availability";
import { coreFleetSearch } from "../adapters/http/core/fleet-search";
import { fastFleetSearch } from "../adapters/http/core/fleet-search-fast";
import { callerCompany, writeRateLimit } from "../adapters/http/rate-limit";
import { coreTracking } from "../adapters/http/core/tracking";
import { platformTracking } from "../adapters/http/platform/tracking";
import { corePartners } from "../adapters/http/core/partners";
import { coreRequesters } from "../adapters/http/core/requesters";
import { metricsRoute } from "../adapters/http/metrics";
import { consoleApp } from "../adapters/console/routes";
import type { MapTiles } from "../adapters/console/tiles";
import { coreEvents } from "../adapters/http/core/events";
import { coreStatements } from "../adapters/http/core/statements";

import type { Services } from "./services";

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
    // A rate card takes at most 1 MiB, whatever MAX_BODY_BYTES allows other bodies (docs/rates.md#setting-the-card).
    bodyLimits: { "/api/fleet/import": IMPORT_BODY_BYTES, "/api/company/rates": Math.min(options.maxBodyBytes, RATE_CARD_MAX_BYTES) },
    logger: options.logger,
    onResponse: (method, route, status, seconds) => services.metrics.observeRequest(method, route, status, seconds),
    onDenied: (request, status, code) =>
      services.audit.record(
        {
          type: "access.denied",
          address: addressOf(request),
          netid: companyOfRequest.get(request),
          detail: `${status} ${code} ${request.method} ${new URL(request.url).pathname}`,
        },
        services.clock.now(),
      ),
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

/** What both surfaces start with: the edge, the write rate limit and the credential macros. */
function surface(name: string, services: Services, options: AppOptions) {
  return new Elysia({ name })
    .use(edgeOf(services, options))
    .use(writeRateLimit(services.rateLimiter, options.addressOf ?? localAddress, callerCompany(services.authenticator)))
    .use(authMacros(services.authenticator));
}

/** The core surface (/api, health). */
function coreRoutes(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  const { authenticator: auth, rateLimiter, trips } = services;
  const accountChecks = { companies: services.companies, limiter: rateLimiter };
  const accounts = { registration: services.registration, login: services.login };
  return surface("core", services, options)
    .use(health(options.readiness))
    .use(metricsRoute(services.metrics, options.metricsToken))
    .use(consoleApp(options.mapTiles))
    .use(coreAccounts({ ...accounts, coreTokens: services.coreTokens, authenticator: auth, accountChecks }, addressOf, rateLimiter))
    .use(coreIntegration(auth, services.integration, addressOf))
    .use(coreWebhookDeliveries(auth, trips.delivery, { ...trips.delivery, integrations: services.integration.integrations, budgets: trips.delivery.replays }))
    .use(corePartners(services.partners, auth))
    .use(coreCompany({ companies: services.companies, sandboxes: services.sandboxes }, auth))
    .use(coreRates(services.rates, auth))
    .use(coreReservations(trips.manage, auth, services.positions, trips.send))
    .use(coreFlights(trips.flights, auth))
    .use(coreRequesters({ ...trips.manage, holds: trips.send.holds }, auth))
    .use(coreQuotes(services.networkQuotes, auth, trips.idempotency, rateLimiter))
    .use(coreFx(services.fx, auth))
    .use(corePlaces(services.places, auth, rateLimiter))
    .use(coreProviderRecord(services.providerRecords, auth, rateLimiter))
    .use(coreStatements(services.statements, auth))
    .use(coreFleet(services.manageFleet, auth))
    .use(coreAvailability(services.availability, auth))
    .use(coreFleetSearch(services.searchFleet, auth, rateLimiter, services.searchAnswers))
    .use(coreTracking(services.tracking, auth))
    .use(coreEvents(services.liveHub, auth));
}

/** The platform surface (/Platform.svc). */
function platformRoutes(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  const { authenticator: auth } = services;
  return surface("platform", services, options)
    .use(platformTokens({ login: services.login, platformTokens: services.platformTokens, isCoreToken: (t) => auth.isCoreToken(t) }, addressOf))
    .use(platformTrips({ ...services.trips, auth, rateLimiter: services.rateLimiter, positions: services.positions }))
    .use(platformDelivery(services.trips.delivery, auth))
    .use(platformTracking(services.tracking, auth))
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
