import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import { greatCircleKm } from "../geo";
import type { BreakdownLine } from "../trips/breakdown-line";
import { roadKmOf } from "../trips/trip-length";
import type { Surcharge } from "./card";
import { MAX_FARE_UNITS, type CompiledCard, type Zone } from "./card-compile";
import { surchargeApplies, type TripClock } from "./card-floor";
import type { ExtraShortfall } from "./trip-extras";

export { cardFloor, tripClock, type CompiledSurcharge, type TripClock } from "./card-floor";
export { AIRPORT_ZONE_KM, compileCard, MAX_FARE_UNITS, type AirportPositions, type CompiledCard } from "./card-compile";

/** A trip's road distance as cards price it: along its stops when it has some (docs/rates.md#stops-the-road-runs-through-them). */
export function cardRoadKm(
  pickup: { lat: number; lon: number },
  dropOff: { lat: number; lon: number },
  stops?: ReadonlyArray<{ lat: number; lon: number } | undefined>,
): number {
  return roadKmOf(pickup, dropOff, stops)!;
}

/** The trip a card prices. */
export interface PricedTrip {
  pickup: { lat: number; lon: number };
  dropOff: { lat: number; lon: number } | undefined;
  /** The stops in order, where placed (undefined: a stop nothing places; it keeps every route from applying). */
  stops?: ReadonlyArray<{ lat: number; lon: number } | undefined>;
  /** The road distance pickup → each stop → drop-off, when computed once for many cards (else each card computes it). */
  roadKm?: number;
  /** The pickup's airport (IATA), when it is one. */
  pickupAirport?: string;
  /** The drop-off's airport, when it is one. */
  dropOffAirport?: string;
  /** An hourly trip (runType HOURLY or a booked duration): priced on `quarterHours`. */
  hourly: boolean;
  quarterHours: number;
  /** The pickup's local wall clock `YYYY-MM-DDTHH:mm`, when known. */
  localTime?: string;
  /** The same clock as numbers (tripClock), when read once for many cards; else each card reads `localTime`. */
  clock?: TripClock;
  extras: ReadonlyArray<{ code: string; quantity: number }>;
}

function inZone(z: Zone, p: { lat: number; lon: number }, airport: string | undefined): boolean {
  if (z.kind === "circle") {
    if (z.airport !== undefined && airport === z.airport) return true;
    if (z.radiusKm < 0) return false;
    // A degree of latitude is ~111 km: a cheap box test before the great circle.
    if (Math.abs(p.lat - z.lat) * 111 > z.radiusKm + 1) return false;
    return greatCircleKm(p.lat, p.lon, z.lat, z.lon) <= z.radiusKm;
  }
  if (p.lon < z.minLon || p.lon > z.maxLon || p.lat < z.minLat || p.lat > z.maxLat) return false;
  return booleanPointInPolygon([p.lon, p.lat], { type: "Polygon", coordinates: [z.ring] });
}

/** The route holds the trip: from its `from` to its `to`, or (both ways) back; every stop in one of its two zones. */
function holds(r: CompiledCard["routes"][number]["rule"], trip: PricedTrip): boolean {
  if (!trip.dropOff) return false;
  // Both zones must hold their point: a polygon (point in polygon) tested after the other zone's cheaper circle.
  const there = (a: Zone, p: { lat: number; lon: number }, ap: string | undefined, b: Zone, q: { lat: number; lon: number }, bp: string | undefined) =>
    a.kind === "polygon" ? inZone(b, q, bp) && inZone(a, p, ap) : inZone(a, p, ap) && inZone(b, q, bp);
  const ends =
    there(r.from, trip.pickup, trip.pickupAirport, r.to, trip.dropOff, trip.dropOffAirport) ||
    (r.bothWays && there(r.to, trip.pickup, trip.pickupAirport, r.from, trip.dropOff, trip.dropOffAirport));
  if (!ends || !trip.stops) return ends;
  for (const stop of trip.stops) if (!stop || !(inZone(r.from, stop, undefined) || inZone(r.to, stop, undefined))) return false;
  return true;
}

const applies = (types: ReadonlySet<string> | undefined, type: string) => types === undefined || types.has(type);

/** What a card asks of a trip before any vehicle: extras it lacks, and a pricer per vehicle type. */
export interface CardQuote {
  /** Requested extras the card does not offer, or offers fewer of than asked (EXTRA_NOT_OFFERED says which). */
  missingExtras: ExtraShortfall[];
  /**
   * The price of a vehicle of `type` whose own formula would charge `fallbackUnits`: total and lines. A total of 0
   * when its base is 0 (no rule prices it and its own rates are 0, or a rule prices it at 0): never offered.
   */
  price(type: string, fallbackUnits: number): { units: number; lines: BreakdownLine[] };
  /** price(type, fallbackUnits).units without making the lines (the network quote prices many vehicles, shows few). */
  units(type: string, fallbackUnits: number): number;
  /** The units of a vehicle of `type` when one of the card's rates prices it (whatever its own formula), else undefined. */
  cardUnits(type: string): number | undefined;
}

/**
 * Prepares a card for one trip (once per quote): the extras asked at once; the routes holding it and the surcharges
 * that apply when a vehicle is first priced (a network quote meets hundreds of cards and prices each for a few types).
 */
export function cardQuote(card: CompiledCard, trip: PricedTrip): CardQuote {
  return new TripCard(card, trip);
}

/** A type's base: the hourly, route or distance rule that prices it (its index in the card's list), and its units. */
interface Base {
  kind: "route" | "hourly" | "distance";
  index: number;
  units: number;
}

/**
 * A card priced for one trip (docs/rates.md#how-a-vehicle-is-priced): a vehicle's base is, first that applies, the
 * hourly rule of its type (an hourly trip), a route holding the trip, the first distance rule of its type whose band
 * holds the trip, else its own rates; then the surcharges; the minimum fare tops base + surcharges up; then the extras
 * at their list price. A base of 0 is no price: the vehicle is never offered, whatever the minimum fare.
 */
class TripCard implements CardQuote {
  readonly missingExtras: ExtraShortfall[];
  private extraUnits = 0;
  private prepared = false;
  /** The routes holding the trip, in the card's order (indices in `card.routes`). */
  private holding: number[] = [];
  private roadKm: number | undefined;
  /** The surcharges that apply to the trip. */
  private surcharges: CompiledCard["surcharges"] = [];
  /** Prices made, by type and own formula: a quote's options share a few (the lines shared too, never changed). */
  private readonly priced = new Map<string, { units: number; lines: BreakdownLine[] }>();

  constructor(
    private readonly card: CompiledCard,
    private readonly trip: PricedTrip,
  ) {
    this.missingExtras = missingExtras(card, trip);
    for (const asked of trip.extras) this.extraUnits += (card.extras.get(asked.code)?.units ?? 0) * asked.quantity;
  }

  /** The trip's road distance, the surcharges that apply, the routes holding it: once, when a vehicle is first priced. */
  private prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    const { card, trip } = this;
    for (const s of card.surcharges) if (surchargeApplies(s, trip)) this.surcharges.push(s);
    if (!trip.dropOff) return;
    this.roadKm = trip.roadKm ?? cardRoadKm(trip.pickup, trip.dropOff, trip.stops);
    // The routes whose pickup-side zone could hold the pickup, in the card's order; each tested whole.
    for (const k of card.routeIndex.candidates(trip.pickup, trip.pickupAirport)) if (holds(card.routes[k].rule, trip)) this.holding.push(k);
  }

  /** The base of a vehicle of `type`: (an hourly trip) its hourly rule, else a holding route for it, else a distance rule. */
  private base(type: string): Base | undefined {
    this.prepare();
    const { card, trip } = this;
    let rules = card.rulesByType.get(type);
    if (!rules) {
      const distance: number[] = [];
      card.distance.forEach((r, k) => applies(r.types, type) && distance.push(k));
      rules = { hourly: card.hourly.findIndex((r) => applies(r.types, type)), distance };
      card.rulesByType.set(type, rules);
    }
    if (trip.hourly && rules.hourly >= 0) {
      const rule = card.hourly[rules.hourly].rule;
      return { kind: "hourly", index: rules.hourly, units: Math.floor((rule.perHour * Math.max(trip.quarterHours, rule.minimumQuarters) + 2) / 4) };
    }
    for (const k of this.holding) if (applies(card.routes[k].types, type)) return { kind: "route", index: k, units: card.routes[k].rule.price };
    const km = this.roadKm;
    if (km === undefined) return undefined;
    // The first of its type's distance rules whose band holds the trip.
    for (const k of rules.distance) {
      const rule = card.distance[k].rule;
      if (km > rule.upToKm) continue;
      return { kind: "distance", index: k, units: rule.base + Math.round(rule.perKm * Math.max(0, km - rule.includedKm)) };
    }
    return undefined;
  }

  /** Base + surcharges, topped up to the minimum fare, then the extras; 0 (no price) for a base of 0 or past MAX_FARE_UNITS. */
  private totalOf(base: number): number {
    if (base <= 0) return 0;
    let total = base;
    for (const s of this.surcharges) total += s.percent !== undefined ? Math.round((base * s.percent) / 100) : s.units;
    const fare = (total < this.card.minimumFare ? this.card.minimumFare : total) + this.extraUnits;
    return fare <= MAX_FARE_UNITS ? fare : 0;
  }

  units(type: string, fallbackUnits: number): number {
    return this.totalOf(this.base(type)?.units ?? fallbackUnits);
  }

  cardUnits(type: string): number | undefined {
    const base = this.base(type);
    return base ? this.totalOf(base.units) : undefined;
  }

  price(type: string, fallbackUnits: number): { units: number; lines: BreakdownLine[] } {
    const key = `${type}\u0000${fallbackUnits}`;
    let priced = this.priced.get(key);
    if (!priced) this.priced.set(key, (priced = this.priceOf(type, fallbackUnits)));
    return priced;
  }

  private priceOf(type: string, fallbackUnits: number): { units: number; lines: BreakdownLine[] } {
    const { card, trip } = this;
    const fmt = (u: number) => formatUnits(u, card.digits);
    const base = this.base(type);
    const units = base?.units ?? fallbackUnits;
    if (units <= 0) return { units: 0, lines: [] };
    let line: BreakdownLine;
    if (!base) line = { kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: fmt(fallbackUnits) };
    else if (base.kind === "route") line = { kind: "BASE", id: card.routes[base.index].rule.id, name: "Route fare", amount: fmt(units) };
    else if (base.kind === "hourly") {
      const rule = card.hourly[base.index].rule;
      line = { kind: "BASE", id: rule.id, name: `Hourly, ${Math.max(trip.quarterHours, rule.minimumQuarters) / 4} h`, amount: fmt(units) };
    } else {
      const rule = card.distance[base.index].rule;
      line = { kind: "BASE", id: rule.id, name: `Distance, ${(Math.round(this.roadKm! * 10) / 10).toFixed(1)} km`, amount: fmt(units) };
    }
    const lines: BreakdownLine[] = [line];
    let total = units;
    for (const s of this.surcharges) {
      const u = s.percent !== undefined ? Math.round((units * s.percent) / 100) : s.units;
      total += u;
      lines.push({ kind: "SURCHARGE", id: s.id, name: s.name ?? SURCHARGE_NAMES[s.kind], amount: fmt(u) });
    }
    // The minimum fare tops up the fare before extras: an extra always adds its list price.
    if (total < card.minimumFare) {
      lines.push({ kind: "MINIMUM", id: "minimumFare", name: "Minimum fare", amount: fmt(card.minimumFare - total) });
      total = card.minimumFare;
    }
    for (const asked of trip.extras) {
      const offered = card.extras.get(asked.code);
      if (!offered || (offered.max !== undefined && offered.max < asked.quantity)) continue;
      total += offered.units * asked.quantity;
      const name = asked.quantity > 1 ? `${offered.name} × ${asked.quantity}` : offered.name;
      lines.push({ kind: "EXTRA", code: offered.code, name, amount: fmt(offered.units * asked.quantity) });
    }
    // Past MAX_FARE_UNITS the lines could no longer sum exactly to the fee: no price, never offered.
    return total <= MAX_FARE_UNITS ? { units: total, lines } : { units: 0, lines: [] };
  }
}

/** The extras the trip asks that the card does not offer, or offers fewer of than asked (docs/rates.md#extras). */
export function missingExtras(card: CompiledCard, trip: Pick<PricedTrip, "extras">): ExtraShortfall[] {
  const missing: ExtraShortfall[] = [];
  for (const asked of trip.extras) {
    const offered = card.extras.get(asked.code);
    if (!offered) missing.push({ code: asked.code, asked: asked.quantity });
    else if (offered.max !== undefined && offered.max < asked.quantity)
      missing.push({ code: asked.code, asked: asked.quantity, max: offered.max });
  }
  return missing;
}

const SURCHARGE_NAMES: Record<Surcharge["kind"], string> = { airportPickup: "Airport pickup", night: "Night surcharge", date: "Date surcharge" };

/** The one line of an option priced by its vehicle's own rates at `fee`. */
export function vehicleRateLine(fee: string): BreakdownLine[] {
  return [{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: fee }];
}

/** The one line of a vehicle priced by its own formula (no card). */
export function vehicleRateBreakdown(units: number, digits: number): BreakdownLine[] {
  return [{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: formatUnits(units, digits) }];
}

function formatUnits(u: number, digits: number): string {
  if (digits === 0) return String(u);
  const scale = 10 ** digits;
  return `${Math.floor(u / scale)}.${String(u % scale).padStart(digits, "0")}`;
}
