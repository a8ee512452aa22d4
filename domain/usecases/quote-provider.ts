import type { CurrencyDirectory } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import type { PlacedPickup } from "../trips/pickup-place";
import type { PricedQuote, QuoteRequest } from "../trips/quote";
import { quoteServingSet } from "../trips/quote-set";
import type { ServiceArea, ServingFleet } from "../trips/service-area";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";
import type { AirportDirectory } from "../airports";
import type { RateCardRepository } from "../rates/ports";
import { vehicleRateLine } from "../rates/pricing";
import { compiledCard, quoteWithCard, type CardTripFacts } from "../rates/priced-quote";

/** What pricing one provider's quote reads: its serving vehicles, its service radius, currency facts. */
export interface ProviderQuoteDeps {
  servingFleet: ServingFleet;
  currencies: CurrencyDirectory;
  integrations: Pick<IntegrationRepository, "get">;
  /** Providers' rate cards (CONTRACT §19); absent: every vehicle is priced by its own rates. */
  rateCards?: Pick<RateCardRepository, "get">;
  airports?: AirportDirectory;
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
  facts: CardTripFacts = { hourly: false, extras: [], stops: 0 },
): Promise<PricedQuote> {
  const area = serviceAreaOf(pickup, await serviceRadiusOf(deps.integrations, provider));
  const build = { ...request, pickup: pickup.position, ...(pickup.country ? { country: pickup.country } : {}) };
  const stored = deps.rateCards && deps.airports ? await deps.rateCards.get(provider) : undefined;
  if (!stored && facts.extras.length === 0) {
    const quote = quoteServingSet(await deps.servingFleet.servingSet(provider, area), build, deps.currencies);
    // The fast path's options are each vehicle's own rates, one line; a fee of 0 takes the path that leaves it out.
    if (!quote.options.some((o) => /^[0.]+$/.test(o.fee)))
      return { ...quote, options: quote.options.map((o) => ({ ...o, breakdown: vehicleRateLine(o.fee) })) };
  }
  const card = stored && deps.airports ? compiledCard(stored, deps.currencies, deps.airports) : undefined;
  return quoteWithCard(await deps.servingFleet.servingEntries(provider, area), build, facts, card, deps.currencies);
}
