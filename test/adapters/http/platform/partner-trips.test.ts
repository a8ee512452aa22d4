import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../../support/harness";
import { startReceiver } from "../../../support/receiver";
import { insertFleet, lookup, parties, quoteTrip, regularTrip, sendTrip, type Party } from "../../../support/trips";

let h: Harness;
let requester: Party;
let provider: Party;
let stranger: Party;
const cleanups: Array<() => unknown> = [];

beforeEach(async () => {
  h = createHarness({ delivery: FAST_DELIVERY });
  ({ requester, provider, stranger } = await parties(h));
  await insertFleet(h, provider.netid, [
    { slug: "acme-van", type: "VAN", maxPassengers: 7, maxLuggage: 6, hourlyRate: "100.00" },
    { slug: "acme-suv-a", type: "SUV", maxPassengers: 6, maxLuggage: 5, hourlyRate: "180.00" },
    { slug: "acme-suv-b", type: "SUV", maxPassengers: 6, maxLuggage: 5, hourlyRate: "160.00" },
    { slug: "acme-sprinter", type: "SPRINTER", maxPassengers: 12, maxLuggage: 12, hourlyRate: "150.00" },
  ]);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  h.close();
});

const bearer = (p: Party) => ({ authorization: `Bearer ${p.jwt}` });
async function partners(a: Party, b: Party) {
  expect((await h.request("POST", "/api/partners", { headers: bearer(a), body: { netid: b.netid } })).status).toBe(200);
  expect((await h.request("POST", `/api/partners/${a.netid}/accept`, { headers: bearer(b) })).status).toBe(200);
}
const acceptFrom = (who: Party, acceptTripsFrom: string, extra: Record<string, unknown> = {}) =>
  h.request("PUT", "/api/company/integration", { headers: bearer(who), body: { acceptTripsFrom, ...extra } });
const codes = (res: { body: { fees: Array<{ code: string }> } }) => res.body.fees.map((o) => o.code);

describe("acceptTripsFrom", () => {
  test("anyone by default: a non-partner's trip is booked", async () => {
    expect((await h.request("GET", "/api/company/integration", { headers: bearer(provider) })).body.data.acceptTripsFrom).toBe("anyone");
    expect((await sendTrip(h, stranger, regularTrip(stranger.netid, provider.netid))).status).toBe(200);
  });

  test("partners: a non-partner's trip and quote are 403 NOT_PARTNER and nothing is booked; a partner's go through", async () => {
    const set = await acceptFrom(provider, "Partners");
    expect([set.status, set.body.data.acceptTripsFrom]).toEqual([200, "partners"]);
    await partners(requester, provider);

    const trip = regularTrip(stranger.netid, provider.netid);
    const refused = await sendTrip(h, stranger, trip);
    expect([refused.status, refused.body.success, refused.body.code]).toEqual([403, false, "NOT_PARTNER"]);
    const quote = await sendTrip(h, stranger, quoteTrip(stranger.netid, provider.netid));
    expect([quote.status, quote.body.code]).toEqual([403, "NOT_PARTNER"]);
    const listed = await h.request("GET", "/api/reservations", { headers: bearer(provider) });
    expect(listed.body.data.total).toBe(0);

    expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).status).toBe(200);
    const partnerQuote = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid));
    expect([partnerQuote.status, partnerQuote.body.status]).toEqual([200, "QUOTE"]);
    // A pending request is not a partnership yet.
    await h.request("POST", "/api/partners", { headers: bearer(stranger), body: { netid: provider.netid } });
    expect((await sendTrip(h, stranger, regularTrip(stranger.netid, provider.netid))).status).toBe(403);
  });

  test("after the partnership ends, the requester's existing booking stays manageable, but new trips and booking a quote are refused", async () => {
    await acceptFrom(provider, "partners");
    await partners(requester, provider);
    const body = regularTrip(requester.netid, provider.netid);
    const booked = await sendTrip(h, requester, body);
    expect(booked.status).toBe(200);
    const quote = quoteTrip(requester.netid, provider.netid);
    expect((await sendTrip(h, requester, quote)).status).toBe(200);
    expect((await h.request("DELETE", `/api/partners/${requester.netid}`, { headers: bearer(provider) })).status).toBe(200);

    // A retried NEW answers as before; booking the earlier quote is a new commitment and is refused.
    const repeated = await sendTrip(h, requester, body);
    expect([repeated.status, repeated.body.transactionId]).toEqual([200, booked.body.transactionId]);
    const converted = await sendTrip(h, requester, { ...quote, reservationType: "REGULAR" });
    expect([converted.status, converted.body.code]).toEqual([403, "NOT_PARTNER"]);

    const update = await sendTrip(h, requester, { ...body, passengerCount: "3", affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } });
    expect(update.status).toBe(200);
    expect((await lookup(h, requester, booked.body.transactionId)).body.data.tripPacket.passengerCount).toBe("3");
    const cancel = await sendTrip(h, requester, { affiliateReservation: { requesterId: requester.netid, providerId: provider.netid, requesterResNo: body.affiliateReservation.requesterResNo, action: "CANCEL" } });
    expect([cancel.status, cancel.body.status]).toEqual([200, "CANCEL"]);
    expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).body.code).toBe("NOT_PARTNER");
  });

  test("an unknown value is 400 naming acceptTripsFrom", async () => {
    const res = await acceptFrom(provider, "friends");
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "acceptTripsFrom", message: "must be anyone or partners" }]);
  });
});

describe("the vehicle-type map", () => {
  test("a quote lists the options of the provider's type for the requester's preferred type first, cheapest first among them", async () => {
    const asked = { passengerCount: "4", preferredVehicleType: "suv_lux" };
    // Without a partnership and map: cheapest first, whatever the preferred type.
    expect(codes(await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, asked)))).toEqual(["acme-van", "acme-sprinter", "acme-suv-b", "acme-suv-a"]);

    await partners(requester, provider);
    expect((await h.request("PUT", `/api/partners/${requester.netid}/vehicle-types`, { headers: bearer(provider), body: { SUV_LUX: "SUV" } })).status).toBe(200);
    const mapped = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, asked));
    expect(codes(mapped)).toEqual(["acme-suv-b", "acme-suv-a", "acme-van", "acme-sprinter"]);
    expect(mapped.body.fees[0].vehType).toBe("SUV");
    // A type the map does not name leaves the quote cheapest first.
    expect(codes(await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, { ...asked, preferredVehicleType: "LIMO" })))).toEqual(["acme-van", "acme-sprinter", "acme-suv-b", "acme-suv-a"]);
    // Another requester is not translated by this partner's map.
    expect(codes(await sendTrip(h, stranger, quoteTrip(stranger.netid, provider.netid, asked)))[0]).toBe("acme-van");
  });

  test("the copy delivered to the provider's endpoint carries the provider's type; the stored booking keeps the requester's", async () => {
    const rx = startReceiver();
    cleanups.push(rx.stop);
    expect((await h.request("PUT", "/api/company/integration", { headers: bearer(provider), body: { deliveryUrl: `${rx.url}/farm-in` } })).status).toBe(200);
    await partners(requester, provider);
    await h.request("PUT", `/api/partners/${requester.netid}/vehicle-types`, { headers: bearer(provider), body: { SUV_LUX: "SUV", EXEC: "SEDAN" } });
    h.services.worker.start();

    const mapped = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { preferredVehicleType: "Suv_Lux" }));
    const unmapped = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { preferredVehicleType: "LIMO" }));
    const fromStranger = await sendTrip(h, stranger, regularTrip(stranger.netid, provider.netid, { preferredVehicleType: "SUV_LUX" }));
    const got = await rx.waitFor(3);
    const delivered = (transactionId: string) => got.find((r) => r.json.transactionId === transactionId)!.json;
    expect(delivered(mapped.body.transactionId).preferredVehicleType).toBe("SUV");
    expect(delivered(unmapped.body.transactionId).preferredVehicleType).toBe("LIMO");
    expect(delivered(fromStranger.body.transactionId).preferredVehicleType).toBe("SUV_LUX");
    const stored = await lookup(h, requester, mapped.body.transactionId);
    expect(stored.body.data.tripPacket.preferredVehicleType).toBe("Suv_Lux");
  });
});
