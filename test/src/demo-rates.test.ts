import { describe, expect, test } from "bun:test";
import { PackagedAirportDirectory } from "../../adapters/airports/directory";
import { PackagedCurrencyDirectory } from "../../adapters/currencies/directory";
import { validateRateCard } from "../../domain/pricing/card";
import { cardQuote, compileCard, type PricedTrip } from "../../domain/pricing/card-pricing";
import { DEMO_FLEET_AIRPORTS, demoFleet } from "../../src/demo/fleet";
import { DEMO_RATE_CARDS } from "../../src/demo/rates";

const airports = new PackagedAirportDirectory();
const currencies = new PackagedCurrencyDirectory();
const card = (netid: string) =>
  validateRateCard(DEMO_RATE_CARDS[netid], {
    minorUnit: (c) => currencies.minorUnit(c),
    defaultCurrency: undefined,
    airportKnown: (iata) => airports.lookup(iata) !== undefined,
  });
const compiled = (netid: string) => compileCard(card(netid), 2, (iata) => airports.lookup(iata));
const at = (iata: string) => ({ lat: airports.lookup(iata)!.lat, lon: airports.lookup(iata)!.lon });
const trip = (over: Partial<PricedTrip>): PricedTrip => ({
  pickup: { lat: 0, lon: 0 },
  dropOff: undefined,
  hourly: false,
  quarterHours: 0,
  extras: [],
  ...over,
});

describe("the demo operators' rate cards (src/demo/rates.ts)", () => {
  test("every card is valid as PUT /api/company/rates checks it, in its operator's fleet currency, and prices every class it runs", () => {
    expect(Object.keys(DEMO_RATE_CARDS).sort()).toEqual(Object.keys(DEMO_FLEET_AIRPORTS).sort());
    for (const netid of Object.keys(DEMO_RATE_CARDS)) {
      const c = card(netid);
      const fleet = demoFleet(netid, airports, 5);
      expect(new Set(fleet.map((v) => v.currency))).toEqual(new Set([c.currency]));
      for (const type of new Set(fleet.map((v) => String(v.type)))) {
        expect({ netid, type, distance: c.distance.some((d) => d.vehTypes?.includes(type)) }).toEqual({ netid, type, distance: true });
        expect({ netid, type, hourly: c.hourly.some((d) => d.vehTypes?.includes(type)) }).toEqual({ netid, type, hourly: true });
      }
      expect(c.extras.map((e) => e.code)).toContain("CHILD_SEAT");
      expect(new Set(c.surcharges.map((s) => s.kind))).toEqual(new Set(["airportPickup", "night", "date"]));
    }
  });

  test("Acme: JFK → Midtown by sedan is the route's 95.00 + the NY airport pickup 15.00 (the README tour's); at night +20 %", () => {
    const toMidtown = (localTime: string) => trip({ pickup: at("JFK"), pickupAirport: "JFK", dropOff: { lat: 40.7484, lon: -73.9857 }, localTime });
    const quote = (localTime: string) => cardQuote(compiled("ACME-LIMO"), toMidtown(localTime)).price("SEDAN", 0);
    expect(quote("2027-01-15T08:00")).toEqual({
      units: 11000,
      lines: [
        { kind: "BASE", id: "jfk-midtown-sedan", name: "Route fare", amount: "95.00" },
        { kind: "SURCHARGE", id: "nyc-airport-fee", name: "Airport pickup (NY airports)", amount: "15.00" },
      ],
    });
    expect(quote("2027-01-15T23:30").lines.at(-1)).toEqual({ kind: "SURCHARGE", id: "night", name: "Night (22:00–06:00)", amount: "19.00" });
  });

  test("Blue Sky: Heathrow → Covent Garden is a flat GBP fare; EuroChauffeur: by distance, a short trip topped up to the minimum", () => {
    const toCoventGarden = trip({ pickup: at("LHR"), pickupAirport: "LHR", dropOff: { lat: 51.5117, lon: -0.124 } });
    const lhr = cardQuote(compiled("BLUE-SKY-CARS"), toCoventGarden).price("SUV", 0);
    expect(lhr.lines.map((l) => [l.id, l.amount])).toEqual([["lhr-central-london-suv", "130.00"], ["airport-fee", "10.00"]]);
    // CDG → Reims (~130 km away): the sedan's distance band.
    const toReims = trip({ pickup: at("CDG"), pickupAirport: "CDG", dropOff: { lat: 49.2583, lon: 4.0317 } });
    const far = cardQuote(compiled("EUROCHAUFFEUR"), toReims).price("SEDAN", 0);
    expect(far.lines[0]).toMatchObject({ kind: "BASE", id: "euro-sedan-km" });
    // A 1-km hop in Paris: base 54.00 is under the 55.00 minimum fare.
    const hop = cardQuote(compiled("EUROCHAUFFEUR"), trip({ pickup: { lat: 48.87, lon: 2.33 }, dropOff: { lat: 48.875, lon: 2.335 } })).price("SEDAN", 0);
    expect(hop).toEqual({
      units: 5500,
      lines: [
        { kind: "BASE", id: "euro-sedan-km", name: "Distance, 0.9 km", amount: "54.00" },
        { kind: "MINIMUM", id: "minimumFare", name: "Minimum fare", amount: "1.00" },
      ],
    });
  });
});
