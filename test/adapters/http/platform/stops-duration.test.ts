import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, nextResNo, parties, sendTrip, type Party } from "../../../support/trips";

/**
 * A trip's length runs through its stops (docs/rates.md#stops-the-road-runs-through-them): the estimated duration a
 * vehicle's own hourly rate prices, and the span its booking holds it for, count the road pickup → each stop →
 * drop-off, not the straight line from the pickup to the drop-off — in a QUOTE to one provider, the network quote, a
 * booking made from either.
 */

type Json = Record<string, any>;
// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party;
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });

const MIDTOWN = { locationType: "address", address: "Times Square, New York", lat: "40.7601", lon: "-73.9840" };
const NEWARK = { locationType: "address", address: "Newark Penn Station", lat: "40.7347", lon: "-74.1644" };
const PHILADELPHIA = { locationType: "address", address: "City Hall, Philadelphia", lat: "39.9526", lon: "-75.1635" };
/** An instant `days` ahead at 15:00Z: each test its own day, so no booking's hold meets another's. */
const dayAhead = (days: number) => new Date((Math.floor(clock.now() / 86_400) + days) * 86_400_000 + 15 * 3_600_000).toISOString().slice(0, 19) + "Z";
const trip = (time: string, stops?: Json[]) => ({
  passengerCount: "2",
  locations: { pickup: { locationType: "airport", address: "JFK", time }, dropOff: MIDTOWN, ...(stops ? { stops } : {}) },
});
const passengers = [{ firstName: "Ada", lastName: "Lovelace" }];
const affiliate = () => ({ requesterId: requester.netid, requesterResNo: nextResNo(), providerId: provider.netid, action: "NEW" });
// 376.9 km of road through Newark and Philadelphia at 50 km/h: 7.54 h, rounded up to 7.75 h (31 quarter hours);
// straight to Midtown, 28 km: the hour every estimate is at least.
const THROUGH_STOPS_QUARTERS = 31;
const TURNAROUND_SECONDS = 30 * 60;

/** The vehicle's holds on the pickup's day, as its provider's schedule shows them. */
async function holdsOn(time: string) {
  const day = time.slice(0, 10);
  const res = await h.request("GET", `/api/fleet/sd-sedan/schedule?from=${day}T00:00:00Z&to=${day}T23:59:59Z`, { headers: bearer(provider) });
  expect(res.status).toBe(200);
  return (res.body.data.holds as Array<{ transactionId: string; from: string; to: string }>).map((x) => ({
    transactionId: x.transactionId,
    hours: (Date.parse(x.to) - Date.parse(x.from)) / 3_600_000,
  }));
}

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider } = await parties(h, "-SD"));
  // No rate card: the vehicle's own rates price it, 80.00 an hour, 70.00 at least.
  await insertFleet(h, provider.netid, [{ slug: "sd-sedan", maxPassengers: 4, maxLuggage: 4, lat: 40.65, lon: -73.79, airports: ["JFK"], minimumRate: "70.00", hourlyRate: "80.00" }]);
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("the duration a vehicle's own hourly rate prices runs through the stops", () => {
  test("JFK → Newark → Philadelphia → Midtown is 7.75 h (620.00) in both quote kinds; straight to Midtown, 1 h (80.00)", async () => {
    const time = dayAhead(3);
    for (const [stops, fee] of [[[NEWARK, PHILADELPHIA], "620.00"], [undefined, "80.00"]] as const) {
      const single = await sendTrip(h, requester, { ...trip(time, stops as Json[] | undefined), reservationType: "QUOTE", passengers, affiliateReservation: affiliate() });
      expect(single.status).toBe(200);
      expect(single.body.fees.map((o: Json) => [o.code, o.fee])).toEqual([["sd-sedan", fee]]);
      const network = await h.request("POST", "/api/quotes", { headers: bearer(requester), body: { ...trip(time, stops as Json[] | undefined), providers: [provider.netid] } });
      expect(network.status).toBe(200);
      expect(network.body.data.options.map((o: Json) => [o.code, o.fee])).toEqual([["sd-sedan", fee]]);
    }
  });
});

describe("a booking holds its vehicle for the trip through the stops, plus the turnaround", () => {
  test("booked from a network quote's option: 7.75 h + 30 min", async () => {
    const time = dayAhead(4);
    const quote = await h.request("POST", "/api/quotes", { headers: bearer(requester), body: { ...trip(time, [NEWARK, PHILADELPHIA]), providers: [provider.netid] } });
    expect(quote.status).toBe(200);
    const booked = await h.request("POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
      headers: bearer(requester),
      body: { quoteOptionId: quote.body.data.options[0].quoteOptionId, requesterResNo: nextResNo(), passengers },
    });
    expect(booked.status).toBe(200);
    expect(booked.body.totalAmount).toBe("620.00");
    expect(await holdsOn(time)).toEqual([{ transactionId: booked.body.transactionId, hours: (THROUGH_STOPS_QUARTERS * 900 + TURNAROUND_SECONDS) / 3600 }]);
  });

  test("a QUOTE converted into a booking: the same span", async () => {
    const time = dayAhead(5);
    const resNo = nextResNo();
    const at = { requesterId: requester.netid, requesterResNo: resNo, providerId: provider.netid, action: "NEW" };
    const quote = await sendTrip(h, requester, { ...trip(time, [NEWARK, PHILADELPHIA]), reservationType: "QUOTE", passengers, affiliateReservation: at });
    expect(quote.status).toBe(200);
    const booked = await sendTrip(h, requester, { ...trip(time, [NEWARK, PHILADELPHIA]), reservationType: "REGULAR", fees: [{ code: "sd-sedan" }], passengers, affiliateReservation: at });
    expect(booked.status).toBe(200);
    expect(booked.body.status).toBe("BOOKING_REQUEST");
    expect(await holdsOn(time)).toEqual([{ transactionId: booked.body.transactionId, hours: (THROUGH_STOPS_QUARTERS * 900 + TURNAROUND_SECONDS) / 3600 }]);
  });
});
