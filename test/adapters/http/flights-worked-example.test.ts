import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, ManualClock, type Harness } from "../../support/harness";
import { integrate, lookup, parties, providerUpdate, regularTrip, sendTrip, type Party } from "../../support/trips";

// docs/flights.md#a-worked-example-a-late-flight-the-arrival-and-the-waiting, number for number through HTTP, on
// either database: each JSON block of the section is what the service answers at that moment of the story (a late
// flight moving the pickup, the ETA, the arrival and the landing, a NO_SHOW refused, the WAITING lines and the total).
const DOC = readFileSync(join(import.meta.dir, "../../../docs/flights.md"), "utf8");
const SECTION = (() => {
  const start = DOC.indexOf("## A worked example: a late flight, the arrival and the waiting");
  expect(start).toBeGreaterThan(0);
  return DOC.slice(start, DOC.indexOf("\n## ", start + 1));
})();
/** The section's JSON blocks, in the page's order. */
const SHOWN = [...SECTION.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));

/** JFK's position in the airport directory: the ETA runs to it and the arrival is within 1.5 km of it. */
const JFK = { lat: 40.63983, lon: -73.77874 };
const at = (iso: string) => Date.parse(iso) / 1000;
const clock = new ManualClock(at("2027-09-04T21:00:00Z"));
let h: Harness;
let requester: Party, provider: Party;

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider } = await parties(h, "-WX"));
});

afterAll(() => h.close());

const read = async (who: Party, id: string) => (await lookup(h, who, id)).body.data;
const flightStatus = (who: Party, id: string, body: Record<string, string>) =>
  h.request("POST", `/api/reservation/${id}/flight-status`, { headers: { authorization: `Bearer ${who.jwt}` }, body });
async function status(id: string, s: string) {
  const res = await providerUpdate(h, provider, id, { status: s });
  expect(res.status).toBe(200);
}
/** The chauffeur `north` metres north of JFK, the position taken at the clock's now. */
async function position(id: string, north: number) {
  const locationDateTime = new Date(clock.now() * 1000).toISOString().replace(".000Z", "Z");
  const body = { transactionId: id, latitude: JFK.lat + north / 111_195, longitude: JFK.lon, locationDateTime };
  expect((await h.request("POST", "/api/GGPS.svc/saveGPScache", { body, headers: { token: provider.token } })).status).toBe(200);
}

describe("docs/flights.md's worked example: a late flight, the arrival and the waiting", () => {
  test("the page shows five answers, and the operator's waiting rate is the page's", async () => {
    expect(SHOWN).toHaveLength(5);
    expect(SECTION).toContain('`policies.waitingRate {"amount": "25.00", "perMinutes": 15}`');
    const set = await integrate(h, provider, { policies: { waitingRate: { amount: "25.00", perMinutes: 15 } } });
    expect(set.body.data.policies.waitingRate).toEqual({ amount: "25.00", perMinutes: 15 });
  });

  test("every answer of the story is the page's, minute by minute", async () => {
    // 17:00 EDT: booked and accepted, a sedan at 120.00 USD, BA117 scheduled at 17:45, the pickup at 18:30.
    const body = regularTrip(requester.netid, provider.netid, {
      locations: {
        pickup: {
          locationType: "airport",
          address: "JFK",
          time: "2027-09-04T18:30:00",
          flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: "2027-09-04T17:45:00" },
        },
        dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
      },
      fees: [{ code: "SEDAN", fee: "120.00", currency: "USD" }],
      totalAmount: "120.00",
    });
    const sent = await sendTrip(h, requester, body);
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;
    await status(id, "CONFIRMED");
    expect((await read(requester, id)).flight).toMatchObject({ pickupOffsetMinutes: 45, state: "SCHEDULED" });

    // 18:00: the estimate says 19:05.
    clock.t = at("2027-09-04T22:00:00Z");
    const moved = await flightStatus(requester, id, { estimatedArrival: "2027-09-04T19:05:00" });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject(SHOWN[0]);

    // 19:00: assigned, 10 km north of the airport.
    clock.t = at("2027-09-04T23:00:00Z");
    await status(id, "ASSIGNED");
    await position(id, 10_000);
    expect(await read(requester, id)).toMatchObject(SHOWN[1]);

    // 19:10 the flight lands; 19:38:20 the chauffeur is at the airport; 19:40 ON_LOCATION.
    clock.t = at("2027-09-04T23:10:00Z");
    expect((await flightStatus(provider, id, { actualArrival: "2027-09-04T19:10:00" })).status).toBe(200);
    await status(id, "EN_ROUTE");
    clock.t = at("2027-09-04T23:38:20Z");
    await position(id, 300);
    clock.t = at("2027-09-04T23:40:00Z");
    await status(id, "ON_LOCATION");
    for (const who of [requester, provider]) expect(await read(who, id)).toMatchObject(SHOWN[2]);

    // 20:30: a NO_SHOW is refused, and nothing of it kept.
    clock.t = at("2027-09-05T00:30:00Z");
    const noShow = await providerUpdate(h, provider, id, { status: "NO_SHOW" });
    expect(noShow.status).toBe(409);
    expect(noShow.body).toMatchObject(SHOWN[3]);
    expect((await read(requester, id)).lastStatus).toBe("ON_LOCATION");

    // 21:27: on board; three WAITING lines, and the total.
    clock.t = at("2027-09-05T01:27:00Z");
    await status(id, "PASSENGER_ON_BOARD");
    for (const who of [requester, provider]) expect((await read(who, id)).tripPacket).toMatchObject(SHOWN[4]);
  });
});
