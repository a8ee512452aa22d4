import { afterAll, describe, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";
import { parties, regularTrip } from "../../support/trips";

const h = createHarness();
afterAll(() => h.close());

describe("GET /api/reservation/{id}: where each place of the trip is (places), for the console's map", () => {
  test("an airport pickup sent without lat/lon is placed at its airport; a drop-off by its own coordinates; a stop by its city; an unplaceable one is null", async () => {
    const { requester, provider, stranger } = await parties(h);
    const trip = regularTrip(requester.netid, provider.netid);
    const { lat: _lat, lon: _lon, ...pickup } = trip.locations.pickup;
    trip.locations = {
      pickup,
      stops: [
        { locationType: "address", address: "Main St", city: "Boston", state: "MA", country: "US", stopNumber: 1 },
        { locationType: "address", address: "Somewhere", stopNumber: 2 },
      ],
      dropOff: { ...trip.locations.dropOff, lat: "40.7484", lon: "-73.9857" },
    };
    const sent = await h.request("POST", "/Platform.svc/sendTrip/V1", { headers: { token: requester.token }, body: trip });
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    for (const who of [requester, provider]) {
      const res = await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${who.jwt}` } });
      expect(res.status).toBe(200);
      const { places } = res.body;
      expect(places.pickup).toMatchObject({ by: "airport", airport: { iata: "JFK" } });
      expect(places.pickup.airport.name).toContain("Kennedy");
      expect(Math.abs(places.pickup.lat - 40.64)).toBeLessThan(0.02);
      expect(Math.abs(places.pickup.lon + 73.78)).toBeLessThan(0.02);
      expect(places.dropOff).toEqual({ lat: 40.7484, lon: -73.9857, by: "coordinates" });
      expect(places.stops).toHaveLength(2);
      expect(places.stops[0]).toMatchObject({ by: "city" });
      expect(Math.abs(places.stops[0].lat - 42.36)).toBeLessThan(0.1);
      expect(places.stops[1]).toBeNull();
      // The booking itself is as every read shows it: no coordinates were added to the pickup, no places in data.
      expect(res.body.data.tripPacket.locations.pickup.lat).toBeUndefined();
      expect(res.body.data.places).toBeUndefined();
    }
    // Anyone else: the same 404 as before.
    expect((await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${stranger.jwt}` } })).status).toBe(404);
  });

  test("the field is documented on the lookup's answer in the OpenAPI document", async () => {
    const spec = (await h.request("GET", "/docs/json")).body;
    const op = spec.paths["/api/reservation/{transactionId}"].get;
    const schema = op.responses["200"].content["application/json"].schema;
    expect(Object.keys(schema.properties.places.properties).sort()).toEqual(["dropOff", "pickup", "stops"]);
    expect(JSON.stringify(schema.properties.places)).toContain("airport");
  });
});
