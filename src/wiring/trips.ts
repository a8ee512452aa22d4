import type { DeliveryWorker } from "../../adapters/delivery/worker";
import type { HoldIndex } from "../../domain/fleet/holds";
import type { RateBudgets } from "../../domain/rate-limit";
import { DEFAULT_BOOKING_LIMITS, type BookingLimits } from "../../domain/trips/booking-bounds";
import { servingFleetOf } from "../../domain/pricing/service-area";
import type { DeliveryDeps } from "../../domain/usecases/deliver-booking";
import type { ChauffeurTracking } from "../../domain/usecases/track-chauffeur";
import { newEventId, type Wiring } from "./context";
import type { FleetWiring } from "./fleet";
import type { ReferenceData } from "./reference";
import type { PlacesWiring } from "./places";

interface TripParts {
  reference: ReferenceData;
  places: PlacesWiring["places"];
  fleetIndex: FleetWiring["fleetIndex"];
  holds: HoldIndex;
  tracking: ChauffeurTracking;
  worker: DeliveryWorker;
  rateBudgets: RateBudgets;
}

/** Trips: quoting, sending a trip (a booking), managing it, and delivering its changes. */
export function wireTrips({ storage, config, clock }: Wiring, { reference, places, fleetIndex, holds, tracking, worker, rateBudgets }: TripParts) {
  const { outbox, bookings, companies, integrations, partnerships } = storage;
  const { airports, currencies } = reference;
  const delivery: DeliveryDeps = { outbox, bookings, runner: worker, clock, dueNow: () => Date.now() / 1000, replays: rateBudgets, newEventId };
  // A booking as a whole holds no more than one request body may carry.
  const limits: BookingLimits = { maxBytes: config.maxBodyBytes ?? DEFAULT_BOOKING_LIMITS.maxBytes };
  // What every quote reads: placing the pickup, the provider's serving vehicles (geo index), currency facts.
  const quoting = {
    airports,
    gazetteer: reference.gazetteer,
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
      ...(places.geocoder ? { geocoder: places.geocoder } : {}),
      currencies: quoting.currencies,
      airports,
      timeZones: reference.timeZones,
      admission: { integrations, partnerships },
      clock,
      // Time-ordered UUIDs (v7: 48-bit ms timestamp, 74 random bits): new bookings append to the primary-key
      // index instead of dirtying a random page each, which makes a group's inserts and commit cheaper.
      newTransactionId: () => Bun.randomUUIDv7(),
      networkQuotes: storage.networkQuotes,
      holds,
      rateCards: storage.rateCards,
    },
    manage: { bookings, companies, clock, tracking, limits, currencies, lostOffers: storage.liveEvents },
    // The pickup follows its flight (docs/flights.md#the-pickup-follows-the-flight).
    flights: { bookings, clock, airports, timeZones: reference.timeZones, gazetteer: reference.gazetteer, holds },
    idempotency: storage.idempotency,
    delivery,
  };
  return { quoting, trips };
}

export type TripWiring = ReturnType<typeof wireTrips>;
