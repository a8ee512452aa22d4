import type { Db } from "../../adapters/sqlite/db";
import { SqliteDisputeStore, SqliteStatementSource } from "../../adapters/sqlite/statement-store";
import type { Logger } from "../../adapters/logging";
import type { SecretSealer } from "../../domain/delivery/ports";
import {
  SqliteCompanyRepository,
  SqliteLoginThrottle,
  SqlitePlatformTokenRepository,
  SqliteRevokedTokens,
  SqliteUserRepository,
} from "../../adapters/sqlite/account-repositories";
import { SqliteAuditLog } from "../../adapters/sqlite/audit-log";
import { sealStoredSecrets, SqliteIntegrationRepository } from "../../adapters/sqlite/integration-repository";
import { SqliteOutbox } from "../../adapters/sqlite/outbox";
import { SqliteBookingRepository } from "../../adapters/sqlite/booking-repository";
import { SqliteIdempotencyStore } from "../../adapters/sqlite/idempotency-store";
import { SqliteVehicleHolds } from "../../adapters/sqlite/vehicle-holds";
import { SqliteOfferDeadlines } from "../../adapters/sqlite/offer-deadlines";
import { SqliteCostRecoveries } from "../../adapters/sqlite/cost-recoveries";
import { SqliteNetworkQuoteRepository } from "../../adapters/sqlite/network-quote-repository";
import { SqliteProviderHistory } from "../../adapters/sqlite/provider-history";
import { SqliteRateCardRepository } from "../../adapters/sqlite/rate-card-repository";
import { SqliteFxRateStore } from "../../adapters/sqlite/fx-rate-store";
import { SqliteProviderFleet } from "../../adapters/sqlite/provider-fleet";
import { SqliteFleetRepository, withdrawRequesterOnlyFleet } from "../../adapters/sqlite/fleet-repository";
import { SqliteFleetSource } from "../../adapters/sqlite/fleet-source";
import { SqlitePartnershipRepository } from "../../adapters/sqlite/partnership-repository";
import { SqlitePositionStore } from "../../adapters/sqlite/position-store";
import { SqliteSandboxRepository } from "../../adapters/sqlite/sandbox-repository";
import { SqliteLiveEventLog } from "../../adapters/sqlite/live-event-log";
import type { AnnouncerFor, Storage } from "./storage";

/** The embedded SQLite file (or `:memory:`) as the service's storage; one process serves it. */
export interface SqliteStorage extends Storage {
  readonly kind: "sqlite";
  db: Db;
  bookings: SqliteBookingRepository;
  outbox: SqliteOutbox;
  audit: SqliteAuditLog;
  positions: SqlitePositionStore;
  sandboxes: SqliteSandboxRepository;
  liveEvents: SqliteLiveEventLog;
}

export function sqliteStorage(db: Db, secrets: SecretSealer, announcerFor: AnnouncerFor, logger: Logger): SqliteStorage {
  const integrations = new SqliteIntegrationRepository(db, secrets);
  const partnerships = new SqlitePartnershipRepository(db);
  const positions = new SqlitePositionStore(db, (err) => logger.error({ err }, "writing chauffeur positions failed; kept for the next attempt"));
  // Every booking change, on either commit path, writes the outbox rows that announce it in its transaction.
  const bookings = new SqliteBookingRepository(db, announcerFor({ integrations, partnerships, positions }));
  const liveEvents = new SqliteLiveEventLog(db, (err) => logger.error({ err }, "writing live events failed; kept for the next attempt"));
  const fxRates = new SqliteFxRateStore(db);
  const file = db.$client.filename && db.$client.filename !== ":memory:" ? db.$client.filename : undefined;
  return {
    kind: "sqlite",
    db,
    companies: new SqliteCompanyRepository(db),
    users: new SqliteUserRepository(db),
    platformTokens: new SqlitePlatformTokenRepository(db),
    revokedTokens: new SqliteRevokedTokens(db),
    loginThrottle: new SqliteLoginThrottle(db),
    audit: new SqliteAuditLog(db),
    integrations,
    outbox: new SqliteOutbox(db, { bookings, integrations }),
    bookings,
    landingsDue: bookings,
    idempotency: new SqliteIdempotencyStore(db),
    networkQuotes: new SqliteNetworkQuoteRepository(db),
    providerHistory: new SqliteProviderHistory(db),
    statements: new SqliteStatementSource(db),
    disputes: new SqliteDisputeStore(db),
    vehicleHolds: new SqliteVehicleHolds(db),
    offerDeadlines: new SqliteOfferDeadlines(db),
    costRecoveries: new SqliteCostRecoveries(db),
    rateCards: new SqliteRateCardRepository(db),
    fxRates,
    providerFleet: new SqliteProviderFleet(db),
    fleet: new SqliteFleetRepository(db),
    // Build workers read a database file themselves; an in-memory database is read here and sent to them.
    fleetSource: new SqliteFleetSource(db.$client),
    // A restart loads the index saved beside the database when nothing in the fleet changed since, or when
    // the change log leads on from it (the entries changed since are re-read).
    indexFile: file ? `${file}.fleet-index` : undefined,
    partnerships,
    positions,
    sandboxes: new SqliteSandboxRepository(db),
    liveEvents,
    streamRegistry: undefined,
    rateBudgets: undefined,
    start: async () => {
      // Rows written before encryption at rest are sealed now; until then they read as they are.
      const sealed = sealStoredSecrets(db, secrets);
      if (sealed) logger.info({ companies: sealed }, "sealed stored secrets");
      // Vehicles a requester-only company added before it could not are withdrawn (docs/security.md#requester-only-companies).
      const withdrawn = withdrawRequesterOnlyFleet(db, Math.floor(Date.now() / 1000));
      if (withdrawn.length) logger.info({ vehicles: withdrawn.length }, "set inactive the vehicles of requester-only companies");
    },
    isEmpty: async () => db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM (SELECT 1 FROM companies LIMIT 1)").get()!.n === 0,
    close: async () => {
      fxRates.close();
      liveEvents.close();
      db.$client.close();
    },
  };
}
