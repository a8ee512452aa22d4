import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, lookup, nextResNo, parties, sendTrip, type Party } from "../../../support/trips";

/**
 * The pickup's clock through HTTP (docs/places.md#the-pickups-clock): a wall-clock time the autumn change repeats is
 * its earlier instant — in the booking, its terms, its deadline and its vehicle's hold — and one the spring change
 * skips moves forward by the gap, with the warning PICKUP_TIME_ADJUSTED in sendTrip (QUOTE, booking and a requester's
 * UPDATE) and in POST /api/quotes.
 */

type Json = Record<string, any>;
const unix = (iso: string) => Date.parse(iso) / 1000;
// A day before New York's autumn change of 2027: its pickups lie within a day (the shortest acceptance window).
const clock = new ManualClock(unix("2027-11-06T06:00:00Z"));
let h: Harness;
let requester: Party, provider: Party;

const MIDTOWN = { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" };
const WESTMINSTER = { locationType: "address", address: "Parliament Square, London", lat: "51.5007", lon: "-0.1246" };
const jfk = (time: string) => ({ passengerCount: "2", locations: { pickup: { locationType: "airport", address: "JFK", time }, dropOff: MIDTOWN } });
const lhr = (time: string) => ({ passengerCount: "2", locations: { pickup: { locationType: "airport", address: "LHR", time }, dropOff: WESTMINSTER } });
/** A pickup placed by its coordinates on Lord Howe Island, whose clocks move by 30 minutes. */
const lordHowe = (time: string) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "address", address: "Lagoon Road, Lord Howe Island", lat: "-31.5240", lon: "159.0590", time },
    dropOff: { locationType: "address", address: "Ned's Beach, Lord Howe Island", lat: "-31.5160", lon: "159.0670" },
  },
});
const passengers = [{ firstName: "Ada", lastName: "Lovelace" }];
const affiliate = (requesterResNo: string) => ({ requesterId: requester.netid, requesterResNo, providerId: provider.netid, action: "NEW" });
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const networkQuote = (body: Json) => h.request("POST", "/api/quotes", { headers: bearer(requester), body });
const adjusted = (warnings: Json[] | undefined) => (warnings ?? []).filter((w) => w.code === "PICKUP_TIME_ADJUSTED");

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider } = await parties(h));
  await insertFleet(h, provider.netid, [
    { slug: "clock-jfk", maxPassengers: 4, maxLuggage: 4, lat: 40.6413, lon: -73.7781, airports: ["JFK"], hourlyRate: "100.00" },
    { slug: "clock-lhr", maxPassengers: 4, maxLuggage: 4, lat: 51.47, lon: -0.4543, airports: ["LHR"], hourlyRate: "80.00", currency: "GBP" },
    { slug: "clock-lord-howe", maxPassengers: 4, maxLuggage: 4, lat: -31.5383, lon: 159.0775, airports: [], hourlyRate: "90.00", currency: "AUD" },
  ]);
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("a time the autumn change repeats is the earlier instant", () => {
  test("the autumn hour 05:30Z: JFK 01:30 on 2027-11-07 is booked at 05:30Z — its terms, acceptance deadline and vehicle hold", async () => {
    const resNo = nextResNo();
    const quote = await sendTrip(h, requester, { ...jfk("2027-11-07T01:30:00"), reservationType: "QUOTE", passengers, affiliateReservation: affiliate(resNo) });
    expect(quote.status).toBe(200);
    expect(adjusted(quote.body.warnings)).toEqual([]);
    // The default terms: free until an hour before the pickup.
    expect(quote.body.fees[0]).toMatchObject({ code: "clock-jfk", terms: { freeCancellationUntil: "2027-11-07T04:30:00Z" } });

    const booked = await sendTrip(h, requester, {
      ...jfk("2027-11-07T01:30:00"),
      reservationType: "REGULAR",
      fees: [{ code: "clock-jfk" }],
      passengers,
      affiliateReservation: affiliate(resNo),
    });
    expect(booked.status).toBe(200);
    expect(adjusted(booked.body.warnings)).toEqual([]);
    const read = (await lookup(h, requester, booked.body.transactionId)).body.data;
    expect(read.pickupDate).toBe(unix("2027-11-07T05:30:00Z"));
    expect(read.pickupZone).toBe("America/New_York");
    expect(read.terms).toMatchObject({
      freeCancellationUntil: "2027-11-07T04:30:00Z",
      cancellation: [
        { until: "2027-11-07T04:30:00Z", percent: 0 },
        { until: "2027-11-07T05:30:00Z", percent: 100 },
      ],
    });
    // 23.5 h ahead (07:30Z would be 25.5 h): the provider has 30 minutes to accept, not 4 hours.
    expect(Date.parse(read.acceptBy) / 1000).toBe(clock.now() + 30 * 60);

    const schedule = await h.request("GET", "/api/fleet/clock-jfk/schedule?from=2027-11-07T00:00:00Z&to=2027-11-08T00:00:00Z", { headers: bearer(provider) });
    expect(schedule.status).toBe(200);
    expect(schedule.body.data.holds).toEqual([expect.objectContaining({ kind: "BOOKING", transactionId: booked.body.transactionId, from: "2027-11-07T05:30:00Z" })]);
  });

  test("London 01:30 on the last Sunday of October 2028 is 00:30Z: the network quote's terms and its booking", async () => {
    const quote = await networkQuote(lhr("2028-10-29T01:30:00"));
    expect(quote.status).toBe(200);
    expect(adjusted(quote.body.data.warnings)).toEqual([]);
    const option = quote.body.data.options.find((o: Json) => o.code === "clock-lhr");
    expect(option.terms.freeCancellationUntil).toBe("2028-10-28T23:30:00Z");
    const booked = await h.request("POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
      headers: bearer(requester),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers },
    });
    expect(booked.status).toBe(200);
    const read = (await lookup(h, requester, booked.body.transactionId)).body.data;
    expect(read.pickupDate).toBe(unix("2028-10-29T00:30:00Z"));
    expect(read.terms.freeCancellationUntil).toBe("2028-10-28T23:30:00Z");
  });
});

describe("a time the spring change skips moves forward by the gap, with PICKUP_TIME_ADJUSTED", () => {
  const warning = {
    code: "PICKUP_TIME_ADJUSTED",
    field: "locations.pickup.time",
    message: expect.stringMatching(/2028-03-12T02:30:00 .*America\/New_York.*2028-03-12T03:30:00 .*2028-03-12T07:30:00Z.*60 minutes later/),
  };

  test("JFK 02:30 on 2028-03-12 is 03:30 local (07:30Z): the QUOTE, the booking and its read say so", async () => {
    const quote = await sendTrip(h, requester, { ...jfk("2028-03-12T02:30:00"), reservationType: "QUOTE", passengers, affiliateReservation: affiliate(nextResNo()) });
    expect(quote.status).toBe(200);
    expect(adjusted(quote.body.warnings)).toEqual([warning]);
    expect(quote.body.fees[0].terms.freeCancellationUntil).toBe("2028-03-12T06:30:00Z");

    const booked = await sendTrip(h, requester, { ...jfk("2028-03-12T02:30:00"), reservationType: "REGULAR", passengers, affiliateReservation: affiliate(nextResNo()) });
    expect(booked.status).toBe(200);
    expect(adjusted(booked.body.warnings)).toEqual([warning]);
    const read = (await lookup(h, requester, booked.body.transactionId)).body.data;
    expect(read.pickupDate).toBe(unix("2028-03-12T07:30:00Z"));
    expect(read.terms.freeCancellationUntil).toBe("2028-03-12T06:30:00Z");
    expect(adjusted(read.warnings)).toEqual([warning]);
  });

  test("POST /api/quotes warns the same; a time that carries its offset, or exists, is not adjusted", async () => {
    const quote = await networkQuote(jfk("2028-03-12T02:30:00"));
    expect(quote.status).toBe(200);
    expect(adjusted(quote.body.data.warnings)).toEqual([warning]);
    expect(quote.body.data.options.find((o: Json) => o.code === "clock-jfk").terms.freeCancellationUntil).toBe("2028-03-12T06:30:00Z");

    for (const time of ["2028-03-12T02:30:00-05:00", "2028-03-12T01:59:00", "2028-03-12T03:00:00"]) {
      const other = await networkQuote(jfk(time));
      expect(other.status).toBe(200);
      expect(adjusted(other.body.data.warnings)).toEqual([]);
    }
  });

  test("an UPDATE moving the pickup into the gap is moved forward the same and warns; moved out, the warning goes", async () => {
    const booked = await sendTrip(h, requester, { ...jfk("2028-03-12T01:30:00"), reservationType: "REGULAR", passengers, affiliateReservation: affiliate(nextResNo()) });
    expect(booked.status).toBe(200);
    expect(adjusted(booked.body.warnings)).toEqual([]);
    const update = (time: string) =>
      sendTrip(h, requester, {
        locations: jfk(time).locations,
        transactionId: booked.body.transactionId,
        affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, action: "UPDATE" },
      });

    const moved = await update("2028-03-12T02:30:00");
    expect(moved.status).toBe(200);
    expect(adjusted(moved.body.warnings)).toEqual([warning]);
    const read = (await lookup(h, requester, booked.body.transactionId)).body.data;
    expect(read.pickupDate).toBe(unix("2028-03-12T07:30:00Z"));
    expect(read.terms.freeCancellationUntil).toBe("2028-03-12T06:30:00Z");
    expect(adjusted(read.warnings)).toEqual([warning]);

    // Moved again to a time that exists: the booking no longer says it was adjusted.
    const back = await update("2028-03-12T03:15:00");
    expect(back.status).toBe(200);
    expect(adjusted(back.body.warnings)).toEqual([]);
    const again = (await lookup(h, requester, booked.body.transactionId)).body.data;
    expect(again.pickupDate).toBe(unix("2028-03-12T07:15:00Z"));
    expect(adjusted(again.warnings)).toEqual([]);
  });

  test("Lord Howe Island's half-hour gap: 02:15 on 2028-10-01 is 02:45 local (15:45Z the day before)", async () => {
    const quote = await networkQuote(lordHowe("2028-10-01T02:15:00"));
    expect(quote.status).toBe(200);
    expect(adjusted(quote.body.data.warnings)).toEqual([
      {
        code: "PICKUP_TIME_ADJUSTED",
        field: "locations.pickup.time",
        message: expect.stringMatching(/2028-10-01T02:15:00 .*Australia\/Lord_Howe.*2028-10-01T02:45:00 .*2028-09-30T15:45:00Z.*30 minutes later/),
      },
    ]);
    expect(quote.body.data.options.find((o: Json) => o.code === "clock-lord-howe").terms.freeCancellationUntil).toBe("2028-09-30T14:45:00Z");
  });
});
