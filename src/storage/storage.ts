import type { AuditEvent, AuditLog, CompanyRepository, LoginThrottle, PlatformTokenRepository, RevokedTokens, UserRepository } from "../../domain/ports";
import type { DisputeStore, StatementSource } from "../../domain/settlement/ports";
import type { IntegrationLookup, IntegrationRepository, Outbox } from "../../domain/delivery/ports";
import type { BookingRepository, ChangeAnnouncer, IdempotencyStore } from "../../domain/trips/ports";
import type { FleetRepository } from "../../domain/fleet/ports";
import type { FleetSource } from "../../domain/fleet/source";
import type { ActiveVehicleTypes, PartnershipRepository } from "../../domain/partners/ports";
import type { PositionLookup, PositionStore } from "../../domain/tracking/position";
import type { SandboxTrips } from "../../domain/usecases/sandbox-dispatch";
import type { RateBudgets } from "../../domain/rate-limit";
import type { LiveEventLog, StreamRegistry } from "../../domain/events/live-events";
import type { LiveEventUsage } from "../../domain/events/store-bounds";
import type { NetworkQuoteRepository, ProviderFleet, RateCardRepository } from "../../domain/pricing/ports";
import type { ProviderHistory } from "../../domain/partners/provider-record";
import type { VehicleHolds } from "../../domain/fleet/holds";
import type { CostRecoveries, LandingsDue, OfferDeadlines } from "../../domain/trips/ports";
import type { FxRateStore } from "../../domain/fx/ports";

/** What a booking change's messages are built from: the storage's synchronous lookups. */
export interface AnnounceLookups {
  integrations: IntegrationLookup;
  partnerships: ActiveVehicleTypes;
  positions: PositionLookup;
}

/** An audit trail the service can flush and the CLI can read. */
export interface AuditTrail extends AuditLog {
  flush(): void | Promise<void>;
  query(filter: { type?: string; netid?: string; since?: number; limit: number }): Promise<Array<Record<string, unknown>>> | Array<Record<string, unknown>>;
}

/**
 * Every repository the service runs on, from one database: the embedded SQLite file, or PostgreSQL shared by
 * several instances. `createServices` wires the use cases to whichever it is given.
 */
export interface Storage {
  readonly kind: "sqlite" | "postgres";
  companies: CompanyRepository;
  users: UserRepository;
  platformTokens: PlatformTokenRepository;
  revokedTokens: RevokedTokens;
  loginThrottle: LoginThrottle;
  audit: AuditTrail;
  integrations: IntegrationRepository & IntegrationLookup;
  outbox: Outbox;
  bookings: BookingRepository & { readonly pendingChanges: number; drain(): Promise<void> };
  idempotency: IdempotencyStore;
  networkQuotes: NetworkQuoteRepository;
  /** The bookings providers' records are read from (docs/terms.md#provider-record). */
  providerHistory: ProviderHistory;
  /** Settled bookings read by statements, and disputes of their lines (docs/settlement.md#statements-and-settlement). */
  statements: StatementSource;
  disputes: DisputeStore;
  /** Vehicles held by live bookings and blackouts (docs/availability.md). */
  vehicleHolds: VehicleHolds;
  /** Bookings whose offer is due (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback), leased to one instance at a time. */
  offerDeadlines: OfferDeadlines;
  /** Bookings whose flight lands soon, for the flight-status poller (docs/flights.md#the-flight-status-poller). */
  landingsDue: LandingsDue;
  /** Give-backs' cost recoveries, for statements (docs/settlement.md#give-back-recovery). */
  costRecoveries: CostRecoveries;
  /** Providers' rate cards (docs/rates.md#setting-the-card). */
  rateCards: RateCardRepository;
  /** The imported FX table (docs/fx.md#what-a-network-quote-shows), each instance's copy kept in step. */
  fxRates: FxRateStore;
  providerFleet: ProviderFleet;
  fleet: FleetRepository;
  /** Where the search index reads the fleet; `indexFile` is where it is saved between runs (none: not saved). */
  fleetSource: FleetSource;
  indexFile: string | undefined;
  partnerships: PartnershipRepository & ActiveVehicleTypes;
  positions: PositionStore & PositionLookup & { flush(): void | Promise<void>; close(): void | Promise<void> };
  sandboxes: SandboxTrips & { setSandbox(netid: string, on: boolean): Promise<boolean>; isSandbox(netid: string): Promise<boolean> };
  /** Each company's live events, for event streams. */
  liveEvents: LiveEventLog & LiveEventUsage & { flush(): void | Promise<void>; close(): void | Promise<void> };
  /** Event streams open on every instance of the database; undefined: this process holds them all. */
  streamRegistry: StreamRegistry | undefined;
  /** Request budgets shared by every instance of the database; undefined: each process keeps its own. */
  rateBudgets: RateBudgets | undefined;
  /** Work before serving that needs the database (sealing secrets stored before encryption at rest). */
  start(): Promise<void>;
  /** Whether no company exists yet (the demo seeds only an empty database). */
  isEmpty(): Promise<boolean>;
  close(): Promise<void>;
}

/** Builds the storage once the announcer (which needs the storage's lookups and the delivery worker) exists. */
export type AnnouncerFor = (lookups: AnnounceLookups) => ChangeAnnouncer;

export type { AuditEvent };
