/**
 * The demo operators' rate cards: priced the way each operator sells, so a newcomer's first quote
 * shows a `breakdown` — an airport flat rate to the city centre, distance rates (Acme's in two bands: a cheaper
 * kilometre beyond 150 km) and hourly hire for every vehicle class, an airport pickup fee, a night surcharge in the
 * pickup's own time zone, holidays, extras, a minimum fare.
 */

/** Every vehicle class of the demo fleet (src/demo/fleet.ts), with its distance and hourly rates per operator. */
const CLASS_RATES: Array<{ type: string; base: number; perKm: number; perHour: number; minimumHours: number }> = [
  { type: "SEDAN", base: 60, perKm: 2.4, perHour: 75, minimumHours: 2 },
  { type: "SEDAN_LUXURY", base: 90, perKm: 3.2, perHour: 105, minimumHours: 2 },
  { type: "SUV", base: 85, perKm: 3.1, perHour: 100, minimumHours: 2 },
  { type: "VAN_MINI", base: 95, perKm: 3.3, perHour: 105, minimumHours: 3 },
  { type: "SPRINTER", base: 150, perKm: 4.5, perHour: 150, minimumHours: 3 },
  { type: "LIMO", base: 220, perKm: 5, perHour: 175, minimumHours: 3 },
  { type: "BUS", base: 320, perKm: 6, perHour: 200, minimumHours: 4 },
  { type: "COACH", base: 600, perKm: 7.5, perHour: 250, minimumHours: 5 },
];

/** An amount in a 2-decimal currency, scaled by an operator's price level. */
const money = (x: number, scale = 1) => (Math.round(x * scale * 100) / 100).toFixed(2);

/**
 * Each class's distance and hourly rates. With `longFromKm`, two distance bands per class (docs/rates.md#distance-bands):
 * up to that many km of road, then a kilometre a sixth cheaper, its base set so both bands meet at the boundary.
 */
function bands(prefix: string, scale: number, longFromKm?: number) {
  return {
    distance: CLASS_RATES.flatMap((c) => {
      const type = c.type.toLowerCase();
      const base = money(c.base, scale);
      const rate = { id: `${prefix}-${type}-km`, vehTypes: [c.type], base, includedKm: 10, perKm: money(c.perKm, scale) };
      if (longFromKm === undefined) return [rate];
      const longPerKm = Number(money((c.perKm * 5) / 6, scale));
      const longBase = Number(rate.base) + (longFromKm - 10) * (Number(rate.perKm) - longPerKm);
      return [
        { ...rate, upToKm: longFromKm },
        { id: `${prefix}-${type}-km-long`, vehTypes: [c.type], base: money(longBase), includedKm: 10, perKm: money(longPerKm) },
      ];
    }),
    hourly: CLASS_RATES.map((c) => ({
      id: `${prefix}-${c.type.toLowerCase()}-hour`,
      vehTypes: [c.type],
      perHour: money(c.perHour, scale),
      minimumHours: c.minimumHours,
    })),
  };
}

/** Flat route fares from each airport to a centre, one per class that sells them (SEDAN, SEDAN_LUXURY, SUV, VAN_MINI). */
function flatRoutes(airport: string, to: object, place: string, prices: [number, number, number, number]) {
  const types = ["SEDAN", "SEDAN_LUXURY", "SUV", "VAN_MINI"];
  return types.map((type, i) => ({
    id: `${airport.toLowerCase()}-${place}-${type.toLowerCase()}`,
    from: { airport },
    to,
    vehTypes: [type],
    price: money(prices[i]),
    bothWays: true,
  }));
}

/** Flat fares from the three New York airports to Midtown, per class (SEDAN, SEDAN_LUXURY, SUV, VAN_MINI) at each. */
function newYorkRoutes(jfk: [number, number, number, number], lga: [number, number, number, number], ewr: [number, number, number, number]) {
  return [...flatRoutes("JFK", MIDTOWN, "midtown", jfk), ...flatRoutes("LGA", MIDTOWN, "midtown", lga), ...flatRoutes("EWR", MIDTOWN, "midtown", ewr)];
}

const EXTRAS = (scale: number) => [
  { code: "CHILD_SEAT", name: "Child seat", price: money(12, scale), max: 3 },
  { code: "BOOSTER_SEAT", name: "Booster seat", price: money(8, scale), max: 3 },
  { code: "MEET_AND_GREET", name: "Meet & greet with name sign", price: money(25, scale) },
  { code: "EXTRA_STOP", name: "Extra stop", price: money(20, scale), max: 5 },
  { code: "EXTRA_WAIT_15", name: "Extra waiting, per 15 minutes", price: money(18, scale), max: 12 },
];

/** Midtown Manhattan (Times Square), 8 km around it; Lower Manhattan as a polygon. */
const MIDTOWN = { lat: 40.758, lon: -73.9855, radiusKm: 8 };
const LOWER_MANHATTAN = {
  polygon: [
    [-74.0192, 40.7003],
    [-73.9712, 40.7108],
    [-73.9769, 40.7282],
    [-74.0113, 40.7301],
    [-74.0192, 40.7003],
  ],
};

export const DEMO_RATE_CARDS: Record<string, object> = {
  "ACME-LIMO": {
    currency: "USD",
    minimumFare: "65.00",
    routes: [
      ...newYorkRoutes([95, 135, 145, 155], [75, 110, 120, 130], [105, 145, 155, 165]),
      { id: "lga-lower-manhattan", from: { airport: "LGA" }, to: LOWER_MANHATTAN, vehTypes: ["SEDAN", "SUV"], price: "85.00", bothWays: true },
      ...flatRoutes("LAX", { lat: 34.0522, lon: -118.2437, radiusKm: 6 }, "downtown", [110, 150, 160, 170]),
    ],
    ...bands("acme", 1, 150),
    surcharges: [
      { id: "nyc-airport-fee", kind: "airportPickup", name: "Airport pickup (NY airports)", airports: ["JFK", "LGA", "EWR"], amount: "15.00" },
      { id: "airport-fee", kind: "airportPickup", name: "Airport pickup",
        airports: ["LAX", "SFO", "ORD", "ATL", "DFW", "DEN", "SEA", "MIA", "BOS", "IAD", "LAS", "PHX", "IAH"], amount: "10.00" },
      { id: "night", kind: "night", name: "Night (22:00–06:00)", from: "22:00", to: "06:00", percent: 20 },
      { id: "holidays", kind: "date", name: "Holiday", dates: ["12-24", "12-25", "12-31", "01-01", "07-04"], percent: 50 },
    ],
    extras: EXTRAS(1),
  },
  "BLUE-SKY-CARS": {
    currency: "GBP",
    minimumFare: "50.00",
    routes: [
      ...flatRoutes("LHR", { lat: 51.5115, lon: -0.116, radiusKm: 6 }, "central-london", [85, 120, 130, 140]),
      ...flatRoutes("LGW", { lat: 51.5115, lon: -0.116, radiusKm: 6 }, "central-london", [110, 150, 160, 170]),
      ...flatRoutes("JFK", MIDTOWN, "midtown", [80, 115, 125, 135]),
    ],
    ...bands("bluesky", 0.8),
    surcharges: [
      { id: "airport-fee", kind: "airportPickup", name: "Airport pickup",
        airports: ["LHR", "LGW", "MAN", "DUB", "AMS", "JFK", "YYZ", "SYD", "SIN", "HKG"], amount: "10.00" },
      { id: "night", kind: "night", name: "Night (23:00–05:00)", from: "23:00", to: "05:00", percent: 25 },
      { id: "christmas", kind: "date", name: "Christmas and New Year", dates: ["12-25", "12-26", "01-01"], percent: 50 },
    ],
    extras: EXTRAS(0.8),
  },
  // Hudson sells New York a little dearer than Acme: a quote at its airports ranks Acme first, Hudson next.
  "HUDSON-CARS": {
    currency: "USD",
    minimumFare: "70.00",
    routes: newYorkRoutes([105, 145, 155, 165], [85, 120, 130, 140], [115, 155, 165, 175]),
    ...bands("hudson", 1.1),
    surcharges: [
      { id: "airport-fee", kind: "airportPickup", name: "Airport pickup", airports: ["JFK", "LGA", "EWR"], amount: "15.00" },
      { id: "night", kind: "night", name: "Night (22:00–06:00)", from: "22:00", to: "06:00", percent: 20 },
      { id: "holidays", kind: "date", name: "Holiday", dates: ["12-25", "01-01", "07-04"], percent: 50 },
    ],
    extras: EXTRAS(1.1),
  },
  EUROCHAUFFEUR: {
    currency: "EUR",
    minimumFare: "55.00",
    routes: [
      ...flatRoutes("CDG", { lat: 48.8566, lon: 2.3522, radiusKm: 7 }, "paris", [90, 130, 140, 150]),
      ...flatRoutes("ORY", { lat: 48.8566, lon: 2.3522, radiusKm: 7 }, "paris", [70, 105, 115, 125]),
      ...flatRoutes("FRA", { lat: 50.1109, lon: 8.6821, radiusKm: 5 }, "frankfurt", [65, 95, 105, 115]),
    ],
    ...bands("euro", 0.9),
    surcharges: [
      { id: "airport-fee", kind: "airportPickup", name: "Airport pickup",
        airports: ["CDG", "ORY", "FRA", "MUC", "MAD", "BCN", "FCO", "ZRH", "VIE"], amount: "12.00" },
      { id: "night", kind: "night", name: "Night (22:00–06:00)", from: "22:00", to: "06:00", percent: 15 },
      { id: "holidays", kind: "date", name: "Public holiday", dates: ["12-25", "01-01", "05-01"], percent: 40 },
    ],
    extras: EXTRAS(0.9),
  },
};
