// A rate card as a busy operator publishes it, for the rate-card benches (docs/performance.md#rate-cards-issue-35): routes from the busy
// airports to circles and polygons, distant polygon routes a pickup's bounding box rejects, one continent-sized
// polygon every pickup falls in (so each quote runs the point-in-polygon test), distance and hourly rates, every kind
// of surcharge and a few extras.

const AIRPORTS = ["JFK", "LHR", "ATL", "CDG", "DXB", "LAX", "HND", "ORD", "FRA", "AMS", "SFO", "SIN"];

/** A closed ring (5 points) of a `km`-wide square around a point. */
function square(lat: number, lon: number, km: number): Array<[number, number]> {
  const dLat = km / 2 / 111.2;
  const dLon = km / 2 / (111.2 * Math.max(0.2, Math.cos((lat * Math.PI) / 180)));
  return [
    [lon - dLon, lat - dLat],
    [lon + dLon, lat - dLat],
    [lon + dLon, lat + dLat],
    [lon - dLon, lat + dLat],
    [lon - dLon, lat - dLat],
  ];
}

export function benchRateCard(seed = 1): Record<string, unknown> {
  const routes: Array<Record<string, unknown>> = [];
  for (const a of AIRPORTS) {
    routes.push({ id: `${a.toLowerCase()}-downtown`, from: { airport: a }, to: { lat: 40.758, lon: -73.9855, radiusKm: 8 }, vehTypes: ["SEDAN"], price: "95.00", bothWays: true });
    routes.push({ id: `${a.toLowerCase()}-midtown-poly`, from: { airport: a }, to: { polygon: square(40.758, -73.9855, 12) }, price: "110.00" });
  }
  // 100 routes between small polygons spread over the world: most pickups' boxes reject them.
  for (let i = 0; i < 100; i++) {
    const lat = -50 + ((i * 37 + seed * 11) % 100);
    const lon = -170 + ((i * 53 + seed * 7) % 340);
    routes.push({ id: `zone-${i}`, from: { polygon: square(lat, lon, 30) }, to: { polygon: square(lat + 0.3, lon + 0.3, 30) }, price: `${80 + (i % 40)}.00` });
  }
  // Every pickup falls in this one (a 9-point ring over most of the inhabited world), its drop-off zone far away.
  routes.push({
    id: "world-to-pole",
    from: { polygon: [[-179, -60], [-90, -60], [0, -60], [90, -60], [179, -60], [179, 75], [0, 75], [-179, 75], [-179, -60]] },
    to: { lat: -89, lon: 0, radiusKm: 1 },
    price: "999.00",
  });
  return {
    currency: "USD",
    minimumFare: "45.00",
    routes,
    distance: [
      { id: "sedan-km", vehTypes: ["SEDAN"], base: "60.00", includedKm: 10, perKm: "2.40" },
      { id: "suv-km", vehTypes: ["SUV"], base: "85.00", includedKm: 10, perKm: "3.10" },
      { id: "any-km", base: "70.00", includedKm: 10, perKm: "2.80" },
    ],
    hourly: [
      { id: "sedan-hour", vehTypes: ["SEDAN"], perHour: "85.00", minimumHours: 3 },
      { id: "suv-hour", vehTypes: ["SUV", "SPRINTER"], perHour: "120.00", minimumHours: 3 },
    ],
    surcharges: [
      { id: "airport-fee", kind: "airportPickup", airports: AIRPORTS, amount: "15.00" },
      { id: "night", kind: "night", from: "22:00", to: "06:00", percent: 20 },
      { id: "holidays", kind: "date", dates: ["12-24", "12-25", "12-31", "01-01"], percent: 50 },
    ],
    extras: [
      { code: "CHILD_SEAT", name: "Child seat", price: "12.00", max: 3 },
      { code: "MEET_AND_GREET", name: "Meet & greet", price: "25.00" },
    ],
  };
}
