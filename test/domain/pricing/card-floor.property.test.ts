import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { PackagedAirportDirectory } from "../../../adapters/airports/directory";
import type { RateCard, ZoneInput } from "../../../domain/pricing/card";
import { cardFloor, cardQuote, cardRoadKm, compileCard, tripClock, type CompiledCard, type PricedTrip } from "../../../domain/pricing/card-pricing";

// docs/performance.md#rate-cards-issue-35: a network quote ranks providers by cardFloor, read from the card's packed terms (one array) and its
// route index's cheapest route per cell. It must be the bound read from the card's own rule objects, with surcharges
// tested on the wall-clock text as a stored card says them — and never above what a vehicle is priced.
const airports = new PackagedAirportDirectory();
const lookup = (iata: string) => airports.lookup(iata);

/** The floor as it was read before the packing: each rule object, each surcharge on the `HH:MM`/`MM-DD` text. */
function floorFromObjects(card: CompiledCard, trip: PricedTrip, roadKm: number | undefined, ownFloor: number): number {
  let base = Infinity;
  // An hourly rule for every type prices an hourly trip before any route or distance rule.
  const hourlyOnly = trip.hourly && card.hourlyForAll;
  const banded = roadKm === undefined || hourlyOnly ? [] : card.distance.filter(({ rule }) => roadKm <= rule.upToKm);
  if (roadKm !== undefined && !hourlyOnly) {
    for (const k of card.routeIndex.candidates(trip.pickup, trip.pickupAirport)) base = Math.min(base, card.routes[k].rule.price);
    for (const { rule } of banded) base = Math.min(base, rule.base + Math.round(rule.perKm * Math.max(0, roadKm - rule.includedKm)));
  }
  if (trip.hourly)
    for (const { rule } of card.hourly) base = Math.min(base, Math.floor((rule.perHour * Math.max(trip.quarterHours, rule.minimumQuarters) + 2) / 4));
  if (!(hourlyOnly || banded.some((d) => d.types === undefined))) base = Math.min(base, ownFloor);
  // A base of 0 is no price: such a vehicle is counted, never offered.
  if (base === 0) return 0;
  let total = base;
  for (const s of card.surcharges) {
    let applies = false;
    if (s.kind === "airportPickup") applies = trip.pickupAirport !== undefined && (s.airports ?? []).includes(trip.pickupAirport);
    else if (trip.localTime && s.kind === "date") applies = (s.dates ?? []).includes(trip.localTime.slice(5, 10));
    else if (trip.localTime) {
      const hm = trip.localTime.slice(11, 16);
      const [from, to] = [s.from ?? "00:00", s.to ?? "00:00"];
      applies = from <= to ? hm >= from && hm < to : hm >= from || hm < to;
    }
    if (applies) total += s.percent !== undefined ? Math.round((base * s.percent) / 100) : s.units;
  }
  // The minimum fare tops up base + surcharges; the extras come after it.
  let extras = 0;
  for (const asked of trip.extras) extras += (card.extras.get(asked.code)?.units ?? 0) * asked.quantity;
  return Math.max(total, card.minimumFare) + extras;
}

const place = fc.tuple(
  fc.constantFrom<[number, number]>([40.6413, -73.7781], [40.758, -73.9855], [51.47, -0.4543], [0, 179.95], [64.1, -21.9]),
  fc.double({ min: -0.4, max: 0.4, noNaN: true }),
  fc.double({ min: -0.4, max: 0.4, noNaN: true }),
).map(([[lat, lon], a, b]) => ({ lat: lat + a, lon: Math.max(-180, Math.min(180, lon + b)) }));
const zone: fc.Arbitrary<ZoneInput> = fc.oneof(
  fc.constantFrom<ZoneInput>({ airport: "JFK" }, { airport: "LHR" }),
  fc.tuple(place, fc.double({ min: 0, max: 80, noNaN: true })).map(([p, radiusKm]) => ({ lat: p.lat, lon: p.lon, radiusKm })),
  fc.constant<ZoneInput>({ polygon: [[-179, -60], [179, -60], [179, 75], [-179, 75], [-179, -60]] }),
);
const money = fc.integer({ min: 0, max: 50_000 }).map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`);
const types = fc.option(fc.subarray(["SEDAN", "SUV", "VAN"], { minLength: 1 }), { nil: undefined });
const two = (n: number) => String(n).padStart(2, "0");
const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 59)).map(([h, m]) => `${two(h)}:${two(m)}`);
const monthDay = fc.constantFrom("12-24", "12-25", "01-01", "07-04", "02-29");
const amountOrPercent = fc.oneof(money.map((amount) => ({ amount })), fc.integer({ min: 0, max: 300 }).map((percent) => ({ percent })));
const surcharge = fc.oneof(
  fc.tuple(fc.subarray(["JFK", "LHR", "CDG"], { minLength: 1 }), amountOrPercent).map(([a, v]) => ({ kind: "airportPickup", airports: a, ...v })),
  fc.tuple(hhmm, hhmm, amountOrPercent).map(([from, to, v]) => ({ kind: "night", from, to, ...v })),
  fc.tuple(fc.uniqueArray(monthDay, { minLength: 1, maxLength: 3 }), amountOrPercent).map(([dates, v]) => ({ kind: "date", dates, ...v })),
);
const card: fc.Arbitrary<RateCard> = fc
  .record({
    minimumFare: fc.option(money, { nil: undefined }),
    routes: fc.array(fc.record({ from: zone, to: zone, bothWays: fc.boolean(), price: money, vehTypes: types }), { maxLength: 8 }),
    distance: fc.array(
      fc.record({ base: money, includedKm: fc.integer({ min: 0, max: 40 }), perKm: money, vehTypes: types, upToKm: fc.option(fc.constantFrom(5, 30, 80), { nil: undefined }) }),
      { maxLength: 4 },
    ),
    hourly: fc.array(fc.record({ perHour: money, minimumHours: fc.constantFrom(0, 1, 2.5, 3), vehTypes: types }), { maxLength: 3 }),
    surcharges: fc.array(surcharge, { maxLength: 4 }),
    extras: fc.constant([{ code: "CHILD_SEAT", name: "Child seat", price: "12.00", max: 3 }]),
  })
  .map((c) => {
    const ids = <T extends object>(list: T[], prefix: string) =>
      list.map((x, k) => Object.fromEntries(Object.entries({ id: `${prefix}${k}`, ...x }).filter(([, v]) => v !== undefined)));
    const rules = { routes: ids(c.routes, "r"), distance: ids(c.distance, "d"), hourly: ids(c.hourly, "h"), surcharges: ids(c.surcharges, "s") };
    return { currency: "USD", ...c, ...rules } as unknown as RateCard;
  });
const trip = fc.record({
  pickup: place,
  dropOff: fc.option(place, { nil: undefined }),
  stops: fc.array(fc.option(place, { nil: undefined, freq: 6 }), { maxLength: 2 }),
  atJfk: fc.boolean(),
  hourly: fc.boolean(),
  quarterHours: fc.integer({ min: 1, max: 60 }),
  localTime: fc.option(fc.tuple(monthDay, hhmm).map(([d, t]) => `2028-${d}T${t}`), { nil: undefined }),
  seats: fc.integer({ min: 0, max: 2 }),
});

describe("the network quote's card floor (domain/pricing/card-pricing.ts cardFloor)", () => {
  test("read from the packed terms, it is the floor read from the rule objects, and no vehicle is priced below it", () => {
    let surchargesApplied = 0;
    fc.assert(
      fc.property(card, fc.array(trip, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 90_000 }), (stored, trips, ownFloor) => {
        const compiled = compileCard(stored, 2, lookup);
        for (const t of trips) {
          const priced: PricedTrip = {
            pickup: t.pickup,
            dropOff: t.dropOff,
            ...(t.stops.length > 0 ? { stops: t.stops } : {}),
            hourly: t.hourly,
            quarterHours: t.quarterHours,
            extras: t.seats > 0 ? [{ code: "CHILD_SEAT", quantity: t.seats }] : [],
            ...(t.atJfk ? { pickupAirport: "JFK" } : {}),
            ...(t.localTime ? { localTime: t.localTime, clock: tripClock(t.localTime) } : {}),
          };
          // The road runs along the stops (docs/rates.md#stops-the-road-runs-through-them).
          const roadKm = t.dropOff ? cardRoadKm(t.pickup, t.dropOff, t.stops) : undefined;
          const floor = cardFloor(compiled, priced, roadKm, ownFloor);
          expect(floor).toBe(floorFromObjects(compiled, priced, roadKm, ownFloor));
          // Without the numeric clock, the text is read: the same floor.
          const { clock: _, ...textOnly } = priced;
          expect(cardFloor(compiled, textOnly, roadKm, ownFloor)).toBe(floor);
          const quote = cardQuote(compiled, priced);
          for (const type of ["SEDAN", "SUV", "VAN", "LIMO"]) {
            expect(quote.units(type, ownFloor)).toBeGreaterThanOrEqual(floor);
            expect(quote.units(type, ownFloor + 777)).toBeGreaterThanOrEqual(floor);
            // Its breakdown sums to its units, whatever the rules (minor units end to end).
            const priced = quote.price(type, ownFloor);
            expect(priced.units).toBe(quote.units(type, ownFloor));
            expect(priced.lines.reduce((sum, l) => sum + Number(l.amount.replace(".", "")), 0)).toBe(priced.units);
          }
          if (quote.price("SEDAN", ownFloor).lines.some((l) => l.kind === "SURCHARGE")) surchargesApplied++;
        }
      }),
      { numRuns: 400 },
    );
    // The cases exercised surcharges that apply (night windows across midnight, dates, airport pickups).
    expect(surchargesApplied).toBeGreaterThan(50);
  });
});
