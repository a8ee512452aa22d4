import type { AirportDirectory } from "../../domain/airports";
import type { FleetEntryInput } from "../../domain/fleet/validation";

/** Busy airports the demo operators serve, by operator. */
export const DEMO_FLEET_AIRPORTS: Record<string, string[]> = {
  "ACME-LIMO": ["JFK", "LGA", "EWR", "LAX", "SFO", "ORD", "ATL", "DFW", "DEN", "SEA", "MIA", "BOS", "IAD", "LAS", "PHX", "IAH"],
  "BLUE-SKY-CARS": ["LHR", "LGW", "MAN", "DUB", "AMS", "JFK", "YYZ", "SYD", "SIN", "HKG"],
  EUROCHAUFFEUR: ["CDG", "ORY", "FRA", "MUC", "MAD", "BCN", "FCO", "ZRH", "VIE", "IST", "DXB", "DOH", "HND", "NRT", "ICN"],
  // A second New York operator in dollars, beside Acme: a booking at these airports has another provider to move to.
  "HUDSON-CARS": ["JFK", "LGA", "EWR"],
};

/** Vehicles per airport, by operator (100 unless named): Hudson is a small local fleet. */
export const DEMO_FLEET_SIZE: Record<string, number> = { "HUDSON-CARS": 30 };

const CURRENCY: Record<string, string> = { "ACME-LIMO": "USD", "BLUE-SKY-CARS": "GBP", EUROCHAUFFEUR: "EUR", "HUDSON-CARS": "USD" };

/** Vehicle classes: models, capacities and base rates (in the operator's currency). */
const CLASSES = [
  {
    type: "SEDAN",
    models: ["Lincoln Continental", "Mercedes-Benz E-Class", "BMW 5 Series", "Cadillac CT6", "Audi A6"],
    pax: [3, 3],
    bags: [2, 3],
    minimum: 75,
    hourly: 65,
  },
  { type: "SEDAN_LUXURY", models: ["Mercedes-Benz S-Class", "BMW 7 Series", "Audi A8 L"], pax: [3, 3], bags: [2, 3], minimum: 120, hourly: 95 },
  {
    type: "SUV",
    models: ["Cadillac Escalade", "Chevrolet Suburban", "GMC Yukon XL", "Lincoln Navigator"],
    pax: [5, 6],
    bags: [4, 6],
    minimum: 110,
    hourly: 90,
  },
  { type: "VAN_MINI", models: ["Mercedes-Benz V-Class", "Chrysler Pacifica", "Volkswagen Multivan"], pax: [6, 7], bags: [5, 7], minimum: 120, hourly: 95 },
  { type: "SPRINTER", models: ["Mercedes-Benz Sprinter Executive", "Ford Transit Luxury"], pax: [10, 14], bags: [10, 14], minimum: 180, hourly: 140 },
  { type: "LIMO", models: ["Lincoln MKT Stretch", "Chrysler 300 Stretch", "Cadillac Escalade Stretch"], pax: [8, 10], bags: [3, 4], minimum: 250, hourly: 160 },
  { type: "BUS", models: ["Mini Coach 28", "Party Bus 30"], pax: [24, 30], bags: [20, 28], minimum: 350, hourly: 190 },
  { type: "COACH", models: ["MCI J4500", "Van Hool CX45", "Setra S 516 HD"], pax: [49, 56], bags: [49, 56], minimum: 650, hourly: 240 },
] as const;

const FEATURES = [
  "leather seats",
  "Wi-Fi",
  "bottled water",
  "phone chargers",
  "child seat on request",
  "meet & greet",
  "flight tracking",
  "tinted windows",
  "wheelchair accessible on request",
];
const COLOURS = ["Black", "Black", "Black", "Silver", "White", "Dark grey"];

/** A small deterministic PRNG (mulberry32), so the demo fleet is the same on every machine. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The demo fleet of one operator: `perAirport` vehicles around each of its airports (within ~30 km),
 * about 4% without a position, some inactive, some with unknown luggage capacity. Deterministic for a netid.
 */
export function demoFleet(netid: string, airports: AirportDirectory, perAirport = 100): FleetEntryInput[] {
  const random = mulberry32([...netid].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const rows: FleetEntryInput[] = [];
  for (const code of DEMO_FLEET_AIRPORTS[netid] ?? []) {
    const airport = airports.lookup(code);
    if (!airport) continue;
    for (let i = 0; i < perAirport; i++) {
      const cls = pick(CLASSES);
      const model = pick(cls.models);
      const colour = pick(COLOURS);
      const located = random() > 0.04;
      // Uniform-ish within ~30 km: offsets in degrees, longitude scaled by latitude.
      const distance = 30 * Math.sqrt(random());
      const bearing = 2 * Math.PI * random();
      const dLat = (distance * Math.cos(bearing)) / 111.2;
      const dLon = (distance * Math.sin(bearing)) / (111.2 * Math.max(0.2, Math.cos((airport.lat * Math.PI) / 180)));
      const feature = pick(FEATURES);
      const otherFeature = pick(FEATURES.filter((f) => f !== feature));
      const surcharge = between(0, 8) * 5;
      rows.push({
        type: cls.type,
        name: `${colour} ${model}`,
        description: `${model} based near ${airport.name} (${code}); ${feature}, ${otherFeature}.`,
        imageUrl: random() < 0.6 ? `https://images.tripswitch.example/fleet/${cls.type.toLowerCase()}-${between(1, 12)}.jpg` : null,
        maxPassengers: between(cls.pax[0], cls.pax[1]),
        maxLuggage: random() < 0.1 ? null : between(cls.bags[0], cls.bags[1]),
        lat: located ? round6(airport.lat + dLat) : null,
        lon: located ? round6(wrapLon(airport.lon + dLon)) : null,
        airports: [code],
        minimum_rate: cls.minimum + surcharge,
        hourly_rate: cls.hourly + surcharge + (random() < 0.5 ? 0.5 : 0),
        currency: CURRENCY[netid] ?? "USD",
        active: random() > 0.02,
      });
    }
  }
  return rows;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function wrapLon(lon: number): number {
  return lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon;
}
