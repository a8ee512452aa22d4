import { afterAll, describe, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";
import { lookup, parties, regularTrip, sendTrip } from "../../support/trips";

const h = createHarness();
afterAll(() => h.close());

describe("GET /api/company: the caller's own company", () => {
  test("names the company, its type, plan and sandbox flag, with a core JWT or a platform token", async () => {
    const { requester, provider } = await parties(h, "-OWN");
    const asRequester = await h.request("GET", "/api/company", { headers: { authorization: `Bearer ${requester.jwt}` } });
    expect(asRequester.status).toBe(200);
    expect(asRequester.body.data).toEqual({ netid: requester.netid, name: expect.stringMatching(/^Test Company/), coType: "CO", plan: "FREE", sandbox: false });

    expect(await h.services.sandboxes.setSandbox(provider.netid, true)).toBe(true);
    const asProvider = await h.request("GET", "/api/company", { headers: { token: provider.token } });
    expect(asProvider.status).toBe(200);
    expect(asProvider.body.data).toMatchObject({ netid: provider.netid, coType: "IO", sandbox: true });
  });

  test("without a credential, or with a wrong one: 401", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }] as Array<Record<string, string>>) {
      const res = await h.request("GET", "/api/company", { headers });
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
    }
  });
});

describe("GET /api/reservation and /api/reservations: the pickup's time zone", () => {
  test("pickupZone is the zone of the pickup's place: the airport's, the coordinates', or the city's; the list says the same", async () => {
    const { requester, provider } = await parties(h, "-ZONE");
    const cases: Array<[Record<string, unknown>, string]> = [
      // JFK by code, no coordinates
      [{ locationType: "airport", address: "JFK", time: "2027-12-03T18:45:00" }, "America/New_York"],
      // coordinates in Tokyo
      [{ locationType: "address", address: "1 Chome Marunouchi", lat: "35.6812", lon: "139.7671", time: "2027-12-03T08:00:00" }, "Asia/Tokyo"],
      // a city the gazetteer places
      [{ locationType: "address", address: "Hauptbahnhof", city: "Berlin", country: "DE", time: "2027-12-03T08:00:00" }, "Europe/Berlin"],
    ];
    for (const [pickup, zone] of cases) {
      const trip = regularTrip(requester.netid, provider.netid);
      trip.locations = { ...trip.locations, pickup };
      const sent = await sendTrip(h, requester, trip);
      expect(sent.status).toBe(200);
      for (const who of [requester, provider]) {
        const read = await lookup(h, who, sent.body.transactionId);
        expect(read.status).toBe(200);
        expect(read.body.data.pickupZone).toBe(zone);
      }
      const listed = await h.request("GET", `/api/reservations?requesterResNo=${encodeURIComponent(trip.affiliateReservation.requesterResNo)}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
      expect(listed.status).toBe(200);
      expect(listed.body.data.items).toHaveLength(1);
      expect(listed.body.data.items[0]).toMatchObject({ transactionId: sent.body.transactionId, pickupZone: zone });
    }
  });

  test("a pickup nothing places reads in UTC", async () => {
    const { requester, provider } = await parties(h, "-UTC");
    const trip = regularTrip(requester.netid, provider.netid);
    trip.locations = { ...trip.locations, pickup: { locationType: "address", address: "Somewhere unknown", time: "2027-12-03T18:45:00" } };
    const sent = await sendTrip(h, requester, trip);
    expect(sent.status).toBe(200);
    expect((await lookup(h, requester, sent.body.transactionId)).body.data.pickupZone).toBe("UTC");
  });
});
