import type { AirportDirectory } from "../airports";
import type { CurrencyDirectory } from "../currency";
import { NotFoundError } from "../errors";
import type { FleetRepository } from "../fleet/ports";
import { validateRateCard, type RateCard } from "../pricing/card";
import type { RateCardRepository } from "../pricing/ports";
import type { Clock, CompanyRepository } from "../ports";
import { notAnOperator, offersRides } from "../company/offers";

/** What the rate card routes need: the cards, the provider's fleet (its currency), ISO 4217 and the airports. */
export interface RateCardDeps {
  rateCards: RateCardRepository;
  fleet: Pick<FleetRepository, "listByNetid">;
  currencies: Pick<CurrencyDirectory, "minorUnit">;
  airports: AirportDirectory;
  clock: Clock;
  /** Whose card it is: only a company that offers rides has one (docs/security.md#requester-only-companies). */
  companies: Pick<CompanyRepository, "findByNetid">;
}

/** A provider's card as shown: the card and when it was last replaced (ISO instant). */
export interface RateCardView extends RateCard {
  updatedAt: string;
}

/** How many of the fleet's entries decide the card's default currency. */
const CURRENCY_SAMPLE = 1000;

const viewOf = (card: RateCard, updatedAt: number): RateCardView => ({ ...card, updatedAt: new Date(updatedAt * 1000).toISOString() });

/** The caller's card; 404 RATE_CARD_NOT_FOUND when it has none. */
export async function getRateCard(deps: Pick<RateCardDeps, "rateCards">, netid: string): Promise<RateCardView> {
  const stored = await deps.rateCards.get(netid);
  if (!stored) throw new NotFoundError("You have no rate card; PUT /api/company/rates sets one", "RATE_CARD_NOT_FOUND");
  return viewOf(stored.card, stored.updatedAt);
}

/** The currency most of the provider's fleet prices in (ties: alphabetical); undefined without vehicles. */
export async function fleetCurrency(deps: Pick<RateCardDeps, "fleet">, netid: string): Promise<string | undefined> {
  const { items } = await deps.fleet.listByNetid(netid, { limit: CURRENCY_SAMPLE, offset: 0 });
  const counts = new Map<string, number>();
  for (const e of items) counts.set(e.currency, (counts.get(e.currency) ?? 0) + 1);
  let best: string | undefined;
  for (const [code, n] of counts) if (best === undefined || n > counts.get(best)! || (n === counts.get(best)! && code < best)) best = code;
  return best;
}

/**
 * Replaces the caller's whole card; a bad card is a ValidationError naming each field, and nothing is saved. A
 * requester-only (CO) company has no card to set: 403 NOT_AN_OPERATOR.
 */
export async function putRateCard(deps: RateCardDeps, netid: string, body: unknown): Promise<RateCardView> {
  const company = await deps.companies.findByNetid(netid);
  if (company && !offersRides(company)) throw notAnOperator("it cannot add a rate card");
  const card = validateRateCard(body, {
    minorUnit: (code) => deps.currencies.minorUnit(code),
    defaultCurrency: await fleetCurrency(deps, netid),
    airportKnown: (iata) => deps.airports.lookup(iata) !== undefined,
  });
  const at = Math.floor(deps.clock.now());
  await deps.rateCards.put(netid, card, at);
  return viewOf(card, at);
}

/** Removes the caller's card (its quotes go back to each vehicle's own rates); 404 when it has none. */
export async function deleteRateCard(deps: Pick<RateCardDeps, "rateCards">, netid: string): Promise<void> {
  if (!(await deps.rateCards.delete(netid))) throw new NotFoundError("You have no rate card", "RATE_CARD_NOT_FOUND");
}
