import { ProviderRecords } from "../../domain/usecases/provider-record";
import type { OfferWatchDeps } from "../../domain/usecases/offer-watch";
import { indexNetworkPricing } from "../../domain/pricing/network-pricing";
import type { NetworkQuoteDeps } from "../../domain/usecases/network-quote";
import { fxTableInUse, type FxDeps } from "../../domain/usecases/fx-rates";
import type { HoldIndex } from "../../domain/fleet/holds";
import type { StoreBounds } from "../../domain/events/store-bounds";
import type { Wiring } from "./context";
import type { FleetWiring } from "./fleet";
import type { ReferenceData } from "./reference";
import type { TripWiring } from "./trips";

interface NetworkParts {
  reference: ReferenceData;
  fleetIndex: FleetWiring["fleetIndex"];
  holds: HoldIndex;
  trips: TripWiring["trips"];
  fx: FxDeps;
  bounds: StoreBounds;
}

/** The network: quotes across providers, the providers' records they rank by, and the offers' deadlines and cascade. */
export function wireNetwork({ storage, clock }: Wiring, { reference, fleetIndex, holds, trips, fx, bounds }: NetworkParts) {
  const { bookings, companies, integrations } = storage;
  const { airports } = reference;
  // Providers' records (docs/terms.md#provider-record): GET /api/providers/{netid}/record and the network quote's options.
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
      gazetteer: reference.gazetteer,
      ...(trips.send.geocoder ? { geocoder: trips.send.geocoder } : {}),
      timeZones: trips.send.timeZones,
      currencies: reference.currencies,
      holds,
      rateCards: storage.rateCards,
    }),
    clock,
    newQuoteId: () => Bun.randomUUIDv7(),
    send: trips.send,
    fx: { table: () => fxTableInUse(fx), currencies: reference.currencies },
  };
  // Acceptance deadlines and the cascade (docs/terms.md#the-acceptance-deadline-acceptby,
  // docs/terms.md#the-cascade-fallback): `serve` runs the watch on a timer (startOfferWatch).
  const offers: OfferWatchDeps = {
    bookings,
    deadlines: storage.offerDeadlines,
    networkQuotes: storage.networkQuotes,
    holds,
    admission: trips.send.admission,
    airports,
    // The next provider's vehicle is held as long as the first one was: the drop-off placed the same way.
    places: { airports, gazetteer: reference.gazetteer, ...(trips.send.geocoder ? { geocoder: trips.send.geocoder } : {}) },
    clock,
  };
  return { providerRecords, networkQuotes, offers };
}
