import { describe, expect, test } from "bun:test";
import type { AirportDirectory } from "../../../domain/airports";
import type { Gazetteer } from "../../../domain/trips/pickup-place";
import type { GeocodedPlace, Geocoder } from "../../../domain/trips/ports";
import { MAX_SEARCHES_PER_TRIP, placeRoute, routePositions, unplacedWarnings } from "../../../domain/trips/drop-off-place";

/**
 * docs/places.md#drop-offs-and-stops: a drop-off and each stop placed as the pickup is — coordinates, else an
 * airport's IATA code, else the geocoder's answer for the address, else the city's centre (DROPOFF_APPROXIMATE);
 * a place nothing places is named in `unplaced`.
 */

const JFK = { iata: "JFK", name: "John F Kennedy Intl", lat: 40.6398, lon: -73.7789, timeZone: "America/New_York", country: "US" };
const airports: AirportDirectory = { lookup: (code) => (code.trim().toUpperCase() === "JFK" ? JFK : undefined) };
const NYC = { lat: 40.7143, lon: -74.006, country: "US", name: "New York City", state: "NY" };
const gazetteer: Gazetteer = {
  city: ({ city }) => (city.toLowerCase() === "new york" ? NYC : undefined),
  countryAt: () => undefined,
};
const PARK_AVE: GeocodedPlace = { lat: 40.7536, lon: -73.9767, label: "200 Park Avenue, New York", country: "US" };

/** A geocoder that knows one address and records what it was asked. */
function fakeGeocoder(answer: GeocodedPlace[] = [PARK_AVE]) {
  const asked: string[] = [];
  const geocoder: Geocoder = {
    async search(text) {
      asked.push(text);
      return text.toLowerCase().startsWith("200 park ave") ? answer : [];
    },
  };
  return { geocoder, asked };
}

describe("placing the drop-off and the stops (docs/places.md#drop-offs-and-stops)", () => {
  test("coordinates first, then the airport, and neither asks the geocoder", async () => {
    const { geocoder, asked } = fakeGeocoder();
    const route = await placeRoute(
      {
        pickup: {},
        dropOff: { locationType: "airport", address: "JFK", city: "New York" },
        stops: [{ address: "200 Park Ave", lat: "40.75", lon: "-73.98" }],
      },
      { airports, gazetteer, geocoder },
    );
    expect(route.dropOff).toMatchObject({ position: { lat: JFK.lat, lon: JFK.lon }, by: "airport", country: "US" });
    expect(route.stops).toEqual([{ position: { lat: 40.75, lon: -73.98 }, by: "coordinates" }]);
    expect(route.warnings).toEqual([]);
    expect(asked).toEqual([]);
  });

  test("an address with a geocoder is placed where the geocoder says, asked with the city it lacks", async () => {
    const { geocoder, asked } = fakeGeocoder();
    const route = await placeRoute({ pickup: {}, dropOff: { address: "200 Park Ave", city: "New York", country: "US" } }, { airports, gazetteer, geocoder });
    expect(route.dropOff).toEqual({ position: { lat: PARK_AVE.lat, lon: PARK_AVE.lon }, by: "address", country: "US" });
    expect(route.warnings).toEqual([]);
    expect(asked).toEqual(["200 Park Ave, New York, US"]);
    expect(routePositions(route)).toEqual({ dropOff: { lat: PARK_AVE.lat, lon: PARK_AVE.lon }, stops: [] });
  });

  test("without a geocoder, or when it finds nothing, the city's centre, warning DROPOFF_APPROXIMATE", async () => {
    const drop = { address: "200 Park Ave, New York", city: "New York" };
    for (const geocoder of [undefined, fakeGeocoder([]).geocoder]) {
      const route = await placeRoute({ pickup: {}, dropOff: drop }, { airports, gazetteer, ...(geocoder ? { geocoder } : {}) });
      expect(route.dropOff).toEqual({ position: { lat: NYC.lat, lon: NYC.lon }, by: "city", country: "US" });
      expect(route.warnings).toEqual([
        expect.objectContaining({ code: "DROPOFF_APPROXIMATE", field: "locations.dropOff", city: "New York City, NY, US" }),
      ]);
      expect(route.unplaced).toEqual([]);
    }
  });

  test("each stop keeps its order; one nothing places is named by its index, and warned of on the GNet QUOTE", async () => {
    const route = await placeRoute(
      {
        pickup: {},
        stops: [
          { address: "Somewhere", city: "Qwxzville" },
          { address: "Main St", city: "New York" },
          { address: "Mystery Rd" },
        ],
        dropOff: { address: "Nowhere" },
      },
      { airports, gazetteer },
    );
    expect(route.stops.map((s) => s.by)).toEqual(["city"]);
    expect(route.warnings.map((w) => w.field)).toEqual(["locations.stops[1]"]);
    expect(route.dropOff).toBeUndefined();
    expect(route.unplaced.map((u) => u.field)).toEqual(["locations.stops[0]", "locations.stops[2]", "locations.dropOff"]);
    expect(route.unplaced[0].message).toContain('city "Qwxzville" is unknown');
    expect(route.unplaced[2].message).toContain("no geocoder");
    expect(unplacedWarnings(route).map((w) => [w.code, w.field])).toEqual([
      ["DROPOFF_NOT_LOCATED", "locations.stops[0]"],
      ["DROPOFF_NOT_LOCATED", "locations.stops[2]"],
      ["DROPOFF_NOT_LOCATED", "locations.dropOff"],
    ]);
  });

  test("an airport code nobody knows is not searched for: its city, else unplaced naming the code", async () => {
    const { geocoder, asked } = fakeGeocoder();
    const withCity = await placeRoute({ pickup: {}, dropOff: { locationType: "airport", address: "XQZ", city: "New York" } }, { airports, gazetteer, geocoder });
    expect(withCity.dropOff?.by).toBe("city");
    const alone = await placeRoute({ pickup: {}, dropOff: { locationType: "airport", address: "XQZ" } }, { airports, gazetteer, geocoder });
    expect(alone.unplaced).toEqual([{ field: "locations.dropOff", message: "names airport XQZ, which is not a known IATA code" }]);
    expect(asked).toEqual([]);
  });

  test("one trip asks the geocoder for at most 10 places, the drop-off first; the others by their city", async () => {
    const asked: string[] = [];
    const geocoder: Geocoder = { search: async (text) => (asked.push(text), [PARK_AVE]) };
    const stops = Array.from({ length: 12 }, (_, i) => ({ address: `${201 + i} Park Ave`, city: "New York" }));
    const route = await placeRoute({ pickup: {}, stops, dropOff: { address: "200 Park Ave, New York" } }, { airports, gazetteer, geocoder });
    expect(asked).toHaveLength(MAX_SEARCHES_PER_TRIP);
    expect(asked[0]).toBe("200 Park Ave, New York");
    expect(asked[9]).toBe("209 Park Ave, New York");
    expect(route.dropOff?.by).toBe("address");
    expect(route.stops.map((s) => s.by).filter((by) => by === "city")).toHaveLength(3);
    expect(route.warnings.map((w) => w.field)).toEqual(["locations.stops[9]", "locations.stops[10]", "locations.stops[11]"]);
  });

  test("a trip without drop-off or stops places nothing", async () => {
    const route = await placeRoute({ pickup: {} }, { airports, gazetteer });
    expect(route).toEqual({ dropOff: undefined, stops: [], warnings: [], unplaced: [] });
  });
});
