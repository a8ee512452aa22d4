import { hostname } from "node:os";
import { PgDisputeStore, PgStatementSource } from "../../adapters/postgres/statement-store";
import type { Logger } from "../../adapters/logging";
import type { SecretSealer } from "../../domain/delivery/ports";
import type { PgDb } from "../../adapters/postgres/db";
import {
  PgCompanyRepository,
  PgLoginThrottle,
  PgPlatformTokenRepository,
  PgRevokedTokens,
  PgUserRepository,
} from "../../adapters/postgres/account-repositories";
import { PgBookingRepository } from "../../adapters/postgres/booking-repository";
import { PgIdempotencyStore } from "../../adapters/postgres/idempotency-store";
import { PgVehicleHolds } from "../../adapters/postgres/vehicle-holds";
import { PgOfferDeadlines } from "../../adapters/postgres/offer-deadlines";
import { PgCostRecoveries } from "../../adapters/postgres/cost-recoveries";
import { PgNetworkQuoteRepository } from "../../adapters/postgres/network-quote-repository";
import { PgFxRateStore } from "../../adapters/postgres/fx-rate-store";
import { PgProviderHistory } from "../../adapters/postgres/provider-history";
import { PgRateCardRepository } from "../../adapters/postgres/rate-card-repository";
import { PgIntegrationRepository, sealStoredSecretsPg } from "../../adapters/postgres/integration-repository";
import { PgOutbox } from "../../adapters/postgres/outbox";
import { PgProviderFleet } from "../../adapters/postgres/provider-fleet";
import { PgFleetRepository, withdrawRequesterOnlyFleet } from "../../adapters/postgres/fleet-repository";
import { PgFleetSource } from "../../adapters/postgres/fleet-source";
import { PgPartnershipRepository } from "../../adapters/postgres/partnership-repository";
import { PgSandboxRepository } from "../../adapters/postgres/sandbox-repository";
import { PgAuditLog } from "../../adapters/postgres/audit-log";
import { PgPositionStore } from "../../adapters/postgres/position-store";
import { PgRateBudgets } from "../../adapters/postgres/rate-budgets";
import type { Booking } from "../../domain/trips/booking";
import { PgLiveEventLog } from "../../adapters/postgres/live-event-log";
import { PgStreamRegistry } from "../../adapters/postgres/stream-registry";
import { PgAccountCache } from "../../adapters/postgres/account-cache";
import type { AnnouncerFor, Storage } from "./storage";

/** How long an outbox message an instance claimed stays its own unless renewed (a dead instance's go to others after it). */
export const DEFAULT_DELIVERY_LEASE_SECONDS = 30;

/** PostgreSQL as the service's storage: any number of instances share it. */
export interface PostgresStorage extends Storage {
  readonly kind: "postgres";
  db: PgDb;
  /** This instance's name in the outbox leases. */
  instanceId: string;
  fleetSource: PgFleetSource;
  audit: PgAuditLog;
  positions: PgPositionStore;
  rateBudgets: PgRateBudgets;
  liveEvents: PgLiveEventLog;
  /** What this instance keeps of accounts, integrations and partners' maps, in step with every instance's changes. */
  accountCache: PgAccountCache;
}

/** A name for this instance that no other instance shares, readable in the outbox leases. */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * The repositories over one migrated PostgreSQL database. Synchronous lookups the booking announcer makes
 * (integrations, partners' vehicle types, the last position) are read just before each change is written.
 */
export function postgresStorage(
  db: PgDb,
  secrets: SecretSealer,
  announcerFor: AnnouncerFor,
  logger: Logger,
  options: { instanceId?: string; indexFile?: string; leaseSeconds?: number; groupCommit?: boolean } = {},
): PostgresStorage {
  const instanceId = options.instanceId ?? newInstanceId();
  // Watched from here to close(): a cache nothing keeps in step is never consulted.
  const accountCache = new PgAccountCache();
  const accountWatch = accountCache.watch(db, (err) => logger.warn({ err }, "account change feed failed; caches emptied, trying again"));
  const integrations = new PgIntegrationRepository(db, secrets, accountCache);
  const partnerships = new PgPartnershipRepository(db, accountCache);
  const positions = new PgPositionStore(db, (err) => logger.error({ err }, "writing chauffeur positions failed; kept for the next attempt"));
  // From the account cache (no round trip when it holds them); a booking being created has no position yet.
  const prefetch = async (bookings: Booking[], created: boolean) => {
    const reads = [
      integrations.prefetch(bookings.flatMap((b) => [b.requesterId, b.providerId])),
      partnerships.prefetch(bookings.map((b) => [b.providerId, b.requesterId] as const)),
    ];
    if (!created) reads.push(positions.prefetch(bookings.map((b) => b.transactionId)));
    await Promise.all(reads);
  };
  const bookings = new PgBookingRepository(db, announcerFor({ integrations, partnerships, positions }), prefetch, { groupCommit: options.groupCommit ?? true });
  const outbox = new PgOutbox(db, {
    owner: instanceId,
    leaseSeconds: options.leaseSeconds ?? DEFAULT_DELIVERY_LEASE_SECONDS,
    bookings,
    onError: (err) => logger.warn({ err }, "renewing delivery claims failed; trying again"),
  });
  const liveEvents = new PgLiveEventLog(db, (err) => logger.warn({ err }, "live events: writing or numbering failed; trying again"));
  const fxRates = new PgFxRateStore(db, (err) => logger.warn({ err }, "reading the FX table failed; trying again"));
  const fleetSource = new PgFleetSource(db, { onError: (err) => logger.warn({ err }, "reading fleet changes failed; trying again") });
  return {
    kind: "postgres",
    db,
    instanceId,
    accountCache,
    companies: new PgCompanyRepository(db, accountCache),
    users: new PgUserRepository(db, accountCache),
    platformTokens: new PgPlatformTokenRepository(db, accountCache),
    revokedTokens: new PgRevokedTokens(db, accountCache),
    loginThrottle: new PgLoginThrottle(db),
    audit: new PgAuditLog(db, (err) => logger.error({ err }, "writing audit events failed")),
    integrations,
    outbox,
    bookings,
    landingsDue: bookings,
    idempotency: new PgIdempotencyStore(db),
    networkQuotes: new PgNetworkQuoteRepository(db),
    providerHistory: new PgProviderHistory(db),
    statements: new PgStatementSource(db),
    disputes: new PgDisputeStore(db),
    vehicleHolds: new PgVehicleHolds(db),
    offerDeadlines: new PgOfferDeadlines(db),
    costRecoveries: new PgCostRecoveries(db),
    rateCards: new PgRateCardRepository(db),
    fxRates,
    providerFleet: new PgProviderFleet(db),
    fleet: new PgFleetRepository(db),
    fleetSource,
    indexFile: options.indexFile,
    partnerships,
    positions,
    sandboxes: new PgSandboxRepository(db),
    liveEvents,
    streamRegistry: new PgStreamRegistry(db),
    rateBudgets: new PgRateBudgets(db),
    start: async () => {
      // Rows written before encryption at rest are sealed now; until then they read as they are.
      const sealed = await sealStoredSecretsPg(db, secrets);
      if (sealed) logger.info({ companies: sealed }, "sealed stored secrets");
      // Vehicles a requester-only company added before it could not are withdrawn (docs/security.md#requester-only-companies).
      const withdrawn = await withdrawRequesterOnlyFleet(db, Math.floor(Date.now() / 1000));
      if (withdrawn.length) logger.info({ vehicles: withdrawn.length }, "set inactive the vehicles of requester-only companies");
    },
    isEmpty: async () => (await db.$client`SELECT 1 FROM companies LIMIT 1`).length === 0,
    close: async () => {
      outbox.close();
      await accountWatch.stop();
      await fxRates.close();
      await positions.close();
      await liveEvents.close();
      await db.$client.close();
    },
  };
}
