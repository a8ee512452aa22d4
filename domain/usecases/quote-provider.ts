import type { CurrencyDirectory } from "../currency";
import type { IntegrationRepository } from "../delivery/ports";
import type { PlacedPickup } from "../trips/pickup-place";
import { fitsTrip, quoteQuarterHours, type PricedQuote, type QuoteRequest } from "../pricing/quote";
import { DEFAULT_TURNAROUND_MINUTES, holdSpan, type HoldIndex } from "../fleet/holds";
import { availabilityWarnings, withoutHeld } from "../pricing/available-set";
import { quoteServingSet } from "../pricing/quote-set";
import type { ServiceArea, ServingFleet } from "../pricing/service-area";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-radius";
import type { AirportDirectory } from "../airports";
import type { RateCardRepository } from "../pricing/ports";
import { vehicleRateLine } from "../pricing/card-pricing";
import { compiledCard, quoteWithCard, type CardTripFacts } from "../pricing/priced-quote";
import { roadKmOf, tooLong, tripTooLong } from "../trips/trip-length";
import { quoteServingSetWithCard } from "../pricing/card-set-quote";

/** What pricing one provider's quote reads: its serving vehicles, its service radius, currency facts. */
export interface ProviderQuoteDeps {
  servingFleet: ServingFleet;
  currencies: CurrencyDirectory;
  integrations: Pick<IntegrationRepository, "get">;
  /** Vehicles held by live bookings and blackouts (docs/availability.md): left out of the quote. */
  holds?: HoldIndex;
  /** Providers' rate cards (docs/rates.md); absent: every vehicle is priced by its own rates. */
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
  /** The pickup instant (Unix seconds): availability is judged over the trip when given. */
  pickupDate?: number,
  facts: CardTripFacts = { hourly: false, extras: [], stops: 0 },
): Promise<PricedQuote> {
  const integration = await deps.integrations.get(provider);
  const notice = integration?.minimumNoticeMinutes ?? 0;
  if (pickupDate !== undefined && notice > 0 && pickupDate - request.now < notice * 60)
    return { options: [], currency: null, warnings: availabilityWarnings(1, 0) };
  const area = serviceAreaOf(pickup, integration?.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM);
  const build = { ...request, pickup: pickup.position, ...(pickup.country ? { country: pickup.country } : {}) };
  // docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes: a trip longer than the provider's maxTripKm is no
  // ground quote; its serving vehicles are counted.
  const roadKm = roadKmOf(pickup.position, request.dropOff, request.stops);
  if (tooLong(roadKm, integration?.maxTripKm)) {
    const fitting = (await deps.servingFleet.servingEntries(provider, area)).filter((e) => fitsTrip(e, request)).length;
    return { options: [], currency: null, warnings: [tripTooLong(fitting, roadKm!)] };
  }
  const held = await heldSlugs(deps, provider, pickupDate, build, integration?.turnaroundMinutes);
  const withBusy = (quote: PricedQuote, busy: number): PricedQuote =>
    busy > 0 ? { ...quote, warnings: [...quote.warnings, ...availabilityWarnings(0, busy)] } : quote;
  const stored = deps.rateCards && deps.airports ? await deps.rateCards.get(provider) : undefined;
  // Without a card, only the extras the trip lists are asked of the provider, not those a GNet flag implies.
  if (!stored && facts.extras.some((e) => e.implied)) facts = { ...facts, extras: facts.extras.filter((e) => !e.implied) };
  if (!stored && facts.extras.length === 0) {
    const { set, busy } = withoutHeld(await deps.servingFleet.servingSet(provider, area), held, request);
    const quote = quoteServingSet(set, build, deps.currencies);
    // The fast path's options are each vehicle's own rates, one line; a fee of 0 takes the path that leaves it out.
    if (!quote.options.some((o) => /^[0.]+$/.test(o.fee)))
      return withBusy({ ...quote, options: quote.options.map((o) => ({ ...o, breakdown: vehicleRateLine(o.fee) })) }, busy);
  }
  const card = stored && deps.airports ? compiledCard(stored, deps.currencies, deps.airports) : undefined;
  if (card) {
    // Priced by the card over the serving set's columns (docs/performance.md#rate-cards-issue-35: as fast as the fleet's own rates).
    const { set, busy } = withoutHeld(await deps.servingFleet.servingSet(provider, area), held, request);
    return withBusy(quoteServingSetWithCard(set, build, facts, card, deps.currencies), busy);
  }
  const entries = await deps.servingFleet.servingEntries(provider, area);
  const free = held.size === 0 ? entries : entries.filter((e) => !held.has(e.slug));
  const busy = entries.filter((e) => held.has(e.slug) && fitsTrip(e, request)).length;
  return withBusy(quoteWithCard(free, build, facts, card, deps.currencies), busy);
}

const NONE_HELD: ReadonlySet<string> = new Set();

/** The provider's vehicles held over the trip (docs/availability.md): none when availability is not asked. */
async function heldSlugs(
  deps: ProviderQuoteDeps,
  provider: string,
  pickupDate: number | undefined,
  build: Parameters<typeof quoteQuarterHours>[0],
  turnaroundMinutes: number | undefined,
): Promise<ReadonlySet<string>> {
  if (!deps.holds || pickupDate === undefined) return NONE_HELD;
  const span = holdSpan(pickupDate, quoteQuarterHours(build), turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES);
  return deps.holds.busySlugs(provider, span.from, span.to);
}

