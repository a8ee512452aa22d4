import { Elysia } from "elysia";
import type { Config } from "./config";
import { IMPORT_BODY_BYTES } from "./config";
import type { Db } from "../adapters/sqlite/db";
import {
  SqliteCompanyRepository,
  SqliteLoginThrottle,
  SqlitePlatformTokenRepository,
  SqliteUserRepository,
} from "../adapters/sqlite/account-repositories";
import { Argon2idHasher } from "../adapters/security/password";
import { CoreTokens } from "../adapters/security/tokens";
import { isCommonPassword } from "../adapters/security/common-passwords";
import { Authenticator, authMacros } from "../adapters/http/auth";
import { edge } from "../adapters/http/errors";
import { docs } from "../adapters/http/docs";
import { health, type Readiness } from "../adapters/http/health";
import { coreAccounts, type AddressOf } from "../adapters/http/core/accounts";
import { platformTokens } from "../adapters/http/platform/tokens";
import type { Logger } from "../adapters/logging";
import type { Clock } from "../domain/ports";
import { SqliteFleetRepository } from "../adapters/sqlite/fleet-repository";
import { KdFleetSearchIndex } from "../adapters/geo/fleet-index";
import { PackagedAirportDirectory } from "../adapters/airports/directory";
import { coreFleet } from "../adapters/http/core/fleet";
import { coreFleetSearch } from "../adapters/http/core/fleet-search";

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

let sharedAirports: PackagedAirportDirectory | undefined;
/** The airport directory is read-only reference data: load it once per process. */
function airportDirectory(): PackagedAirportDirectory {
  return (sharedAirports ??= new PackagedAirportDirectory());
}

/** Every port wired to its adapter: the one place that knows which implementation serves which port. */
export function createServices(db: Db, config: Pick<Config, "jwtSecret" | "tokenTtlSeconds">, clock: Clock = systemClock) {
  const companies = new SqliteCompanyRepository(db);
  const users = new SqliteUserRepository(db);
  const platformTokenRepo = new SqlitePlatformTokenRepository(db);
  const hasher = new Argon2idHasher();
  const coreTokens = new CoreTokens(config.jwtSecret, config.tokenTtlSeconds);
  const decoyHash = Bun.password.hashSync(crypto.randomUUID(), { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });
  const loginDeps = { users, hasher, throttle: new SqliteLoginThrottle(db), clock, decoyHash };
  const airports = airportDirectory();
  const fleet = new SqliteFleetRepository(db);
  const fleetIndex = new KdFleetSearchIndex({ load: () => fleet.activeEntries() });
  return {
    db,
    clock,
    companies,
    users,
    platformTokens: platformTokenRepo,
    coreTokens,
    authenticator: new Authenticator(coreTokens, users, platformTokenRepo),
    registration: { companies, hasher, clock, isCommonPassword },
    login: loginDeps,
    airports,
    fleet,
    fleetIndex,
    manageFleet: { fleet, index: fleetIndex, airports, clock },
    searchFleet: { index: fleetIndex, airports },
  };
}

export type Services = ReturnType<typeof createServices>;

export interface AppOptions {
  logger: Logger;
  maxBodyBytes: number;
  readiness: Readiness;
  /** Client address for throttling; the server's requestIP when listening. */
  addressOf?: AddressOf;
}

const localAddress: AddressOf = () => "local";

/** The core surface (/api, health, docs). */
export function buildCoreApp(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  return new Elysia({ name: "core" })
    .use(edge({ maxBodyBytes: options.maxBodyBytes, bodyLimits: { "/api/fleet/import": IMPORT_BODY_BYTES }, logger: options.logger }))
    .use(docs())
    .use(authMacros(services.authenticator))
    .use(health(options.readiness))
    .use(coreAccounts({ registration: services.registration, login: services.login, coreTokens: services.coreTokens }, addressOf))
    .use(coreFleet(services.manageFleet, services.authenticator))
    .use(coreFleetSearch(services.searchFleet, services.authenticator));
}

/** The platform surface (/Platform.svc). */
export function buildPlatformApp(services: Services, options: AppOptions) {
  const addressOf = options.addressOf ?? localAddress;
  return new Elysia({ name: "platform" })
    .use(edge({ maxBodyBytes: options.maxBodyBytes, logger: options.logger }))
    .use(authMacros(services.authenticator))
    .use(platformTokens({ login: services.login, platformTokens: services.platformTokens }, addressOf));
}

/** Both surfaces in one app, as served on PORT when PLATFORM_PORT is not set. */
export function buildApp(services: Services, options: AppOptions) {
  return new Elysia().use(buildCoreApp(services, options)).use(buildPlatformApp(services, options));
}
