import type { CurrencyDirectory } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import type { PlacedPickup } from "../trips/pickup-place";
import { quoteQuarterHours, type PricedQuote, type QuoteRequest } from "../trips/quote";
import { DEFAULT_TURNAROUND_MINUTES, holdSpan, type HoldIndex } from "../fleet/holds";
import { withoutHeld } from "../trips/available-set";
import { availabilityWarnings } from "../trips/warnings";
import { quoteServingSet } from "../trips/quote-set";
import type { ServiceArea, ServingFleet } from "../trips/service-area";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";

/** What pricing one provider's quote reads: its serving vehicles, its service radius, currency facts. */
export interface ProviderQuoteDeps {
  servingFleet: ServingFleet;
  currencies: CurrencyDirectory;
  integrations: Pick<IntegrationRepository, "get">;
  /** Vehicles held by live bookings and blackouts (CONTRACT §19.5): left out of the quote. */
  holds?: HoldIndex;
}

/** The provider's service radius in km (integration `serviceRadiusKm`, 50 when unset). */
export async function serviceRadiusOf(integrations: Pick<IntegrationRepository, "get">, netid: string): Promise<number> {
  return (await integrations.get(netid))?.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM;
}

/** The service area of a placed pickup for a provider with this radius. */
export function serviceAreaOf(pickup: PlacedPickup, radiusKm: number): ServiceArea {
  return { position: pickup.position, radiusKm, ...(pickup.airport ? { airport: pickup.airport.iata } : {}) };
}

/**
 * Prices a quote from one provider (its netid as stored): its active vehicles serving the placed pickup (listing
 * its airport or within the provider's service radius, through the geo index), then buildQuote — one currency,
 * the currency's minor unit, cheapest first, at most 20; warnings when no vehicle serves or currencies were left out.
 * Ranked over the serving set's columns (quoteServingSet: the answer of buildQuote over the same vehicles), so a
 * provider with 50,000 vehicles quotes about as fast as one with 50.
 */
export async function quoteProvider(
  deps: ProviderQuoteDeps,
  provider: string,
  pickup: PlacedPickup,
  request: Omit<QuoteRequest, "pickup">,
  /** The pickup instant (Unix seconds): availability is judged over the trip when given. */
  pickupDate?: number,
): Promise<PricedQuote> {
  const integration = await deps.integrations.get(provider);
  const notice = integration?.minimumNoticeMinutes ?? 0;
  if (pickupDate !== undefined && notice > 0 && pickupDate - request.now < notice * 60)
    return { options: [], currency: null, warnings: availabilityWarnings(1, 0) };
  const area = serviceAreaOf(pickup, integration?.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM);
  let serving = await deps.servingFleet.servingSet(provider, area);
  const full = { ...request, pickup: pickup.position, ...(pickup.country ? { country: pickup.country } : {}) };
  let busy = 0;
  if (deps.holds && pickupDate !== undefined && serving.size > 0) {
    const span = holdSpan(pickupDate, quoteQuarterHours(full), integration?.turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES);
    ({ set: serving, busy } = withoutHeld(serving, await deps.holds.busySlugs(provider, span.from, span.to), request));
  }
  const quote = quoteServingSet(serving, full, deps.currencies);
  return busy > 0 ? { ...quote, warnings: [...quote.warnings, ...availabilityWarnings(0, busy)] } : quote;
}
