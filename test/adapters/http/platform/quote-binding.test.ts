import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, integrate, lookup, nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * The price is bound to the trip (docs/integration.md#the-price-is-bound-to-the-trip): a quote booked with another trip — a QUOTE resubmitted as
 * REGULAR (GNet's way), a network quote's option through POST /api/quotes/{id}/book or a NEW with quoteId — is 409
 * QUOTE_TRIP_MISMATCH naming the fields; a requester's UPDATE of a priced field re-prices the booked vehicle or is
 * 409 REQUOTE_NEEDED; after conversion a requester's fee lines are kept aside, never the price.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party;

/** Each test books the one sedan on a day of its own: a booked quote holds its vehicle (docs/availability.md). */
let day = "2027-01-15";
let days = 0;
beforeEach(() => {
  day = new Date(Date.UTC(2027, 0, 15 + days++)).toISOString().slice(0, 10);
});
const SFO_PICKUP = {
  locationType: "airport",
  address: "SFO",
  get time() {
    return `${day}T08:00:00`;
  },
};
const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };
const SAN_JOSE = { locationType: "address", address: "200 E Santa Clara St, San Jose, CA", lat: "37.3382", lon: "-121.8863" };
const LAX_PICKUP = {
  locationType: "airport",
  address: "LAX",
  get time() {
    return `${day}T08:00:00`;
  },
};
const SANTA_MONICA = { locationType: "address", address: "Santa Monica Pier, CA", lat: "34.0094", lon: "-118.4973" };

/** The trip quoted: 3 passengers SFO → Cupertino (the sedan: 1.25 h × 80.00 = 100.00). */
const tripFields = (over: Record<string, unknown> = {}) => ({
  runType: "Airport",
  passengerCount: "3",
  locations: { pickup: SFO_PICKUP, dropOff: CUPERTINO },
  ...over,
});
const passengers = [{ firstName: "Ada", lastName: "King" }];
const affiliate = (resNo: string, action = "NEW") => ({ requesterId: requester.netid, requesterResNo: resNo, providerId: provider.netid, action });
const codes = (body: { errors?: Array<{ field: string }> }) => (body.errors ?? []).map((e) => e.field);

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [requester, provider] = await Promise.all([party(h, "QB-BOOKWELL", "CO"), party(h, "QB-ACME", "IO")]);
  expect((await integrate(h, provider, { luggage: "native" })).status).toBe(200);
  // One sedan at SFO (4 seats, 4 bags), priced 80.00 an hour: the quote's only option.
  await insertFleet(h, provider.netid, [{ slug: "qb-sedan", type: "SEDAN", maxPassengers: 4, maxLuggage: 4, hourlyRate: "80.00" }]);
}, 60_000);

afterAll(async () => {
  await h.close();
});

/** A QUOTE to the provider (GNet's way), answered with the sedan at 100.00; its requesterResNo. */
async function gnetQuote(): Promise<{ resNo: string; transactionId: string }> {
  const resNo = nextResNo();
  const res = await sendTrip(h, requester, { ...tripFields(), reservationType: "QUOTE", passengers, affiliateReservation: affiliate(resNo) });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: "QUOTE", totalAmount: "100.00" });
  return { resNo, transactionId: res.body.transactionId };
}

/** A network quote of the same trip; the sedan's option. */
async function networkQuote() {
  const res = await h.request("POST", "/api/quotes", { headers: { token: requester.token }, body: tripFields() });
  expect(res.status).toBe(200);
  const option = res.body.data.options.find((o: { code: string }) => o.code === "qb-sedan");
  expect(option.fee).toBe("100.00");
  return { quoteId: res.body.data.quoteId as string, option: option as { quoteOptionId: string; code: string; fee: string } };
}

describe("booking a quote with another trip: 409 QUOTE_TRIP_MISMATCH naming the fields", () => {
  test("GNet: a QUOTE resubmitted as REGULAR to another drop-off with more passengers is 409; the quote stays a quote", async () => {
    const { resNo, transactionId } = await gnetQuote();
    const other = await sendTrip(h, requester, {
      ...tripFields({ passengerCount: "4", locations: { pickup: SFO_PICKUP, dropOff: SAN_JOSE } }),
      reservationType: "REGULAR",
      passengers,
      affiliateReservation: affiliate(resNo),
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ success: false, code: "QUOTE_TRIP_MISMATCH", transactionId, fields: ["locations.dropOff", "passengerCount"] });
    expect(codes(other.body)).toEqual(["locations.dropOff", "passengerCount"]);

    const read = await lookup(h, requester, transactionId);
    expect(read.body.data.lastStatus).toBe("QUOTE");
  });

  test("GNet: a pickup moved by 90 minutes is 409 naming locations.pickup.time; moved by 45 (within 60) it books the quoted price", async () => {
    const { resNo, transactionId } = await gnetQuote();
    const late = await sendTrip(h, requester, {
      ...tripFields({ locations: { pickup: { ...SFO_PICKUP, time: `${day}T09:30:00` }, dropOff: CUPERTINO } }),
      reservationType: "REGULAR",
      passengers,
      affiliateReservation: affiliate(resNo),
    });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: "QUOTE_TRIP_MISMATCH", fields: ["locations.pickup.time"] });
    const res = await sendTrip(h, requester, {
      ...tripFields({ locations: { pickup: { ...SFO_PICKUP, time: `${day}T08:45:00` }, dropOff: CUPERTINO } }),
      reservationType: "REGULAR",
      passengers,
      affiliateReservation: affiliate(resNo),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ transactionId, status: "BOOKING_REQUEST", totalAmount: "100.00" });
  });

  test("network quote: POST /api/quotes/{id}/book with another drop-off or more luggage is 409; the same trip 30 minutes later books", async () => {
    const { quoteId, option } = await networkQuote();
    const url = `/api/quotes/${quoteId}/book`;
    const headers = { token: requester.token };
    const moved = await h.request("POST", url, {
      headers,
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers, luggageCount: "3", locations: { pickup: SFO_PICKUP, dropOff: SAN_JOSE } },
    });
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ code: "QUOTE_TRIP_MISMATCH", quoteId, fields: ["locations.dropOff", "luggageCount"] });
    const later = { pickup: { ...SFO_PICKUP, time: `${day}T08:30:00` }, dropOff: CUPERTINO };
    const booked = await h.request("POST", url, { headers, body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers, locations: later } });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ status: "BOOKING_REQUEST", totalAmount: "100.00" });
  });

  test("network quote: a sendTrip NEW with quoteId and a stop the quote did not have is 409 naming locations.stops", async () => {
    const { quoteId, option } = await networkQuote();
    const res = await sendTrip(h, requester, {
      ...tripFields({ locations: { pickup: SFO_PICKUP, dropOff: CUPERTINO, stops: [SAN_JOSE] } }),
      reservationType: "REGULAR",
      passengers,
      quoteId,
      fees: [{ code: option.code }],
      affiliateReservation: affiliate(nextResNo()),
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "QUOTE_TRIP_MISMATCH", fields: ["locations.stops"] });
  });
});

describe("a requester's UPDATE of a booking made from a quote", () => {
  /** A network quote's sedan booked through the book route; its transactionId. */
  async function bookedFromNetworkQuote(): Promise<string> {
    const { quoteId, option } = await networkQuote();
    const res = await h.request("POST", `/api/quotes/${quoteId}/book`, {
      headers: { token: requester.token },
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: nextResNo(), passengers },
    });
    expect(res.status).toBe(200);
    return res.body.transactionId;
  }
  const update = (transactionId: string, body: Record<string, unknown>) =>
    sendTrip(h, requester, { ...body, transactionId, affiliateReservation: { requesterId: requester.netid, action: "UPDATE" } });

  test("to another drop-off: re-priced with the provider's rates (100.00 → 120.00), in the answer, both parties' reads and a changeLogs line", async () => {
    const transactionId = await bookedFromNetworkQuote();
    const res = await update(transactionId, { locations: { pickup: SFO_PICKUP, dropOff: SAN_JOSE } });
    expect(res.status).toBe(200);
    expect(res.body.totalAmount).toBe("120.00");
    expect(res.body.fees).toEqual([expect.objectContaining({ code: "qb-sedan", fee: "120.00", currency: "USD" })]);
    for (const who of [requester, provider]) {
      const packet = (await lookup(h, who, transactionId)).body.data.tripPacket;
      expect(packet.totalAmount).toBe("120.00");
      expect(packet.fees[0].fee).toBe("120.00");
      expect(packet.changeLogs.some((l: { changeDesc: string }) => l.changeDesc.includes("re-priced") && l.changeDesc.includes("100.00 → 120.00"))).toBe(true);
    }
  });

  test("to another city (out of the vehicle's area) or a party it cannot seat: 409 REQUOTE_NEEDED, nothing changed", async () => {
    const transactionId = await bookedFromNetworkQuote();
    const away = await update(transactionId, { locations: { pickup: LAX_PICKUP, dropOff: SANTA_MONICA } });
    expect(away.status).toBe(409);
    expect(away.body).toMatchObject({ success: false, code: "REQUOTE_NEEDED", transactionId });
    const crowd = await update(transactionId, { passengerCount: "7" });
    expect(crowd.status).toBe(409);
    expect(crowd.body.code).toBe("REQUOTE_NEEDED");
    const packet = (await lookup(h, provider, transactionId)).body.data.tripPacket;
    expect(packet).toMatchObject({ passengerCount: "3", totalAmount: "100.00" });
    expect(packet.locations.pickup.address).toBe("SFO");
  });

  test("GNet: a converted QUOTE updated by requesterResNo to another drop-off is re-priced too", async () => {
    const { resNo, transactionId } = await gnetQuote();
    const affiliateNew = affiliate(resNo);
    expect((await sendTrip(h, requester, { ...tripFields(), reservationType: "REGULAR", passengers, affiliateReservation: affiliateNew })).status).toBe(200);
    const res = await sendTrip(h, requester, { locations: { pickup: SFO_PICKUP, dropOff: SAN_JOSE }, affiliateReservation: { ...affiliateNew, action: "UPDATE" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ transactionId, totalAmount: "120.00" });
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: provider.token } });
    expect(gnet.body.totalAmount).toBe("120.00");
  });

  test("after CONFIRMED, a requester rewriting fees to 0.01 (and totalAmount) changes nothing in the price: kept under requesterExtra", async () => {
    const { resNo, transactionId } = await gnetQuote();
    const affiliateNew = affiliate(resNo);
    expect((await sendTrip(h, requester, { ...tripFields(), reservationType: "REGULAR", passengers, affiliateReservation: affiliateNew })).status).toBe(200);
    expect((await providerUpdate(h, provider, transactionId, { status: "CONFIRMED" })).status).toBe(200);
    const cheap = [{ type: "OTHER", code: "qb-sedan", fee: "0.01", currency: "USD" }];
    // GNet's spelling of the path, any letter case: the same rule.
    const res = await h.request("POST", "/platform.svc/sendtrip/v1", {
      headers: { token: requester.token },
      body: { fees: cheap, totalAmount: "0.01", affiliateReservation: { ...affiliateNew, action: "UPDATE" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.totalAmount).toBe("100.00");
    expect(res.body.fees).toEqual([expect.objectContaining({ code: "qb-sedan", fee: "100.00" })]);
    const core = (await lookup(h, provider, transactionId)).body.data.tripPacket;
    expect(core.totalAmount).toBe("100.00");
    expect(core.fees).toEqual([expect.objectContaining({ fee: "100.00" })]);
    expect(core.requesterExtra.fees).toEqual([expect.objectContaining({ fee: "0.01" })]);
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: provider.token } });
    expect(gnet.body).toMatchObject({ totalAmount: "100.00" });
    expect(gnet.body.fees).toEqual([expect.objectContaining({ fee: "100.00" })]);
  });
});
