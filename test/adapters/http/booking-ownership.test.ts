import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, nextResNo, party, type Party, providerUpdate, regularTrip, sendTrip, soonTrip } from "../../support/trips";

// Two requesters and one provider: only the provider names its bookings by its own numbers, and a requester's copy of
// a field the exchange or the provider writes never passes for the real one.
let h: Harness;
let clock: ManualClock;
let alpha: Party, bravo: Party, provider: Party;
let partner: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000));
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [alpha, bravo, provider] = await Promise.all([party(h, "ALPHA-BOOK", "CO"), party(h, "BRAVO-BOOK", "CO"), party(h, "PROV-OWN", "IO")]);
  partner = startReceiver();
  const put = await integrate(h, provider, { deliveryUrl: `${partner.url}/farm-in` });
  expect(put.status).toBe(200);
  h.services.worker.start();
});

afterAll(async () => {
  partner.stop();
  await h.close();
});

const platform = (method: string, path: string, who: Party, body?: unknown) => h.request(method, `/Platform.svc/${path}`, { headers: { token: who.token }, ...(body !== undefined ? { body } : {}) });
const push = (who: Party, body: unknown) => h.request("POST", "/api/GGPS.svc/saveGPScache", { body, headers: { token: who.token } });
const grab = (who: Party, body: unknown) => h.request("POST", "/api/GGPS.svc/GPSgrab", { body, headers: { token: who.token } });

/** A fresh provider number. */
const number = () => `P1-${nextResNo()}`;

/** A trip `who` sends to the provider, picking up soon (with extra members and affiliateReservation members), answered with its id. */
async function send(who: Party, over: Record<string, unknown> = {}, affiliate: Record<string, unknown> = {}): Promise<string> {
  const res = await sendTrip(h, who, soonTrip(who.netid, provider.netid, over, affiliate, clock.now()));
  expect(res.status).toBe(200);
  return res.body.transactionId;
}

/** The delivery the provider's endpoint got for a booking. */
async function delivered(transactionId: string) {
  const deadline = Date.now() + 5000;
  while (!partner.received.some((r) => r.json?.transactionId === transactionId) && Date.now() < deadline) await Bun.sleep(20);
  const got = partner.received.find((r) => r.json?.transactionId === transactionId);
  expect(got).toBeDefined();
  return got!.json;
}

describe("a requester cannot take over the provider's reservation number", () => {
  test("B's NEW with A's providerResNo keeps it as B's own member; every by-number route and the GPS push still reach A's booking", async () => {
    const resNo = number();
    const a = await send(alpha);
    const confirm = await providerUpdate(h, provider, a, { status: "CONFIRMED", providerResNo: resNo, chauffeur: { chauffeurId: "CH-1", firstName: "Sam", lastName: "Lee", phoneNumber: "+12125550100" } });
    expect(confirm.status).toBe(200);

    const b = await send(bravo, {}, { providerResNo: resNo });
    const bView = (await lookup(h, bravo, b)).body.data;
    expect(bView.targetResNo).toBeNull();
    expect(bView.tripPacket.affiliateReservation.providerResNo).toBeUndefined();
    expect(bView.tripPacket.affiliateReservation.requesterExtra).toEqual({ providerResNo: resNo });
    // The provider's own endpoint gets B's number only as B's member too.
    const message = await delivered(b);
    expect(message.affiliateReservation.providerResNo).toBeUndefined();
    expect(message.affiliateReservation.requesterExtra).toEqual({ providerResNo: resNo });

    // The provider's update by its number moves A's booking, not B's.
    const byNumber = await platform("POST", `providerUpdateStatusByResNo/${provider.netid}/${resNo}/V1`, provider, { status: "ASSIGNED" });
    expect(byNumber.status).toBe(200);
    expect((await lookup(h, alpha, a)).body.data.lastStatus).toBe("ASSIGNED");
    expect((await lookup(h, bravo, b)).body.data.lastStatus).toBe("BOOKING_REQUEST");
    await platform("POST", `providerUpdateStatusByResNo/${provider.netid}/${resNo}/V1`, provider, { status: "EN_ROUTE" });

    // GPS pushes by internalBookingId land on A's booking.
    const pushed = await push(provider, { internalBookingId: resNo, latitude: 40.7, longitude: -73.9, chfName: "Sam Lee" });
    expect(pushed.status).toBe(200);
    expect(pushed.body.data.transactionId).toBe(a);
    clock.advance(2);
    const grabbed = await grab(provider, [{ internalBookingId: resNo, latitude: 40.71, longitude: -73.91 }]);
    expect(grabbed.status).toBe(200);
    expect(grabbed.body.data.results[0]).toMatchObject({ status: "accepted", transactionId: a });

    // getReservationByReservationId: the provider's pair names A's booking; B is no party of it.
    const asProvider = await platform("GET", `getReservationByReservationId/${provider.netid}/${resNo}/V1`, provider);
    expect(asProvider.status).toBe(200);
    expect(asProvider.body.data.transactionId).toBe(a);
    expect((await platform("GET", `getReservationByReservationId/${provider.netid}/${resNo}/V1`, alpha)).body.data.transactionId).toBe(a);
    const asB = await platform("GET", `getReservationByReservationId/${provider.netid}/${resNo}/V1`, bravo);
    expect(asB.status).toBe(404);
    expect(asB.text).not.toContain("Sam");

    // The chauffeur's position by the provider's number: A sees it, B gets the same 404 as for anything not its own.
    const aLocation = await platform("GET", `getChauffeurLocationByResNo/${provider.netid}/${resNo}/V1`, alpha);
    expect(aLocation.status).toBe(200);
    expect(aLocation.body.location).toEqual({ lat: 40.71, lon: -73.91 });
    for (const path of [`getChauffeurLocationByResNo/${provider.netid}/${resNo}/V1`, `getChauffeurLocationByResNoArray/${provider.netid}/${resNo}/V1`]) {
      const res = await platform("GET", path, bravo);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain("40.71");
    }
    const bLocation = await platform("GET", `getChauffeurLocationByTransactionId/${b}/V1`, bravo);
    expect(bLocation.status).toBe(404);

    // cancelTripByResNo takes the requester's own pair: B cannot cancel A's trip through the provider's number.
    for (const method of ["GET", "POST"]) {
      expect((await platform(method, `cancelTripByResNo/${provider.netid}/${resNo}/V1`, bravo)).status).toBe(404);
      expect((await platform(method, `cancelTripByResNo/${bravo.netid}/${resNo}/V1`, bravo)).status).toBe(404);
    }
    expect((await lookup(h, alpha, a)).body.data.lastStatus).toBe("EN_ROUTE");
    // B's own booking answers to B's own number, and nobody sees A's chauffeur through it.
    const bByOwn = await platform("GET", `getReservationByReservationId/${bravo.netid}/${bView.sourceResNo}/V1`, bravo);
    expect(bByOwn.body.data.transactionId).toBe(b);
    expect(bByOwn.body.data.tripPacket.chauffeur).toBeUndefined();
  });

  test("a provider update that reuses a number another of its live bookings holds is 409 PROVIDER_RES_NO_IN_USE; once that booking ended the number is free", async () => {
    const resNo = number();
    const a = await send(alpha);
    const b = await send(bravo);
    expect((await providerUpdate(h, provider, a, { status: "CONFIRMED", providerResNo: resNo })).status).toBe(200);

    for (const body of [{ status: "CONFIRMED", providerResNo: resNo }, { status: "CONFIRMED", resNo }]) {
      const taken = await providerUpdate(h, provider, b, body);
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ success: false, code: "PROVIDER_RES_NO_IN_USE", field: "providerResNo" });
      expect(taken.body.message).toContain(resNo);
    }
    // Nothing of the refused update was kept.
    const bView = (await lookup(h, bravo, b)).body.data;
    expect(bView.lastStatus).toBe("BOOKING_REQUEST");
    expect(bView.targetResNo).toBeNull();
    // By number: moving A's booking onto a number B's booking holds is refused the same way.
    const other = number();
    expect((await providerUpdate(h, provider, b, { status: "CONFIRMED", providerResNo: other })).status).toBe(200);
    const viaNumber = await platform("POST", `providerUpdateStatusByResNo/${provider.netid}/${resNo}/V1`, provider, { status: "ASSIGNED", resNo: other });
    expect(viaNumber.status).toBe(409);
    expect(viaNumber.body.code).toBe("PROVIDER_RES_NO_IN_USE");
    expect((await lookup(h, alpha, a)).body.data).toMatchObject({ lastStatus: "CONFIRMED", targetResNo: resNo });

    // Two updates racing for one fresh number: exactly one booking gets it.
    const raced = number();
    const [c, d] = await Promise.all([send(alpha), send(bravo)]);
    const both = await Promise.all([c, d].map((id) => providerUpdate(h, provider, id, { status: "CONFIRMED", providerResNo: raced })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const holders = await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM bookings WHERE provider_res_no = ?", raced);
    expect(Number(holders[0].n)).toBe(1);

    // A cancels: its booking has ended, so the provider may give the number to B's booking, and the number names it.
    expect((await platform("POST", `cancelTripByTransactionId/${a}/V1`, alpha)).status).toBe(200);
    expect((await providerUpdate(h, provider, b, { status: "ASSIGNED", providerResNo: resNo })).status).toBe(200);
    const byNumber = await platform("GET", `getReservationByReservationId/${provider.netid}/${resNo}/V1`, provider);
    expect(byNumber.body.data.transactionId).toBe(b);
  });

  test("a farm-in reply naming a number another live booking holds is recorded without taking it", async () => {
    const resNo = number();
    const a = await send(alpha);
    expect((await providerUpdate(h, provider, a, { status: "CONFIRMED", providerResNo: resNo })).status).toBe(200);
    partner.state.respond = (r) => Response.json(r.json?.affiliateReservation?.requesterId === bravo.netid ? { success: true, reservationId: resNo, totalAmount: "99.00" } : {});
    try {
      const b = await send(bravo);
      const deadline = Date.now() + 5000;
      let view = (await lookup(h, bravo, b)).body.data;
      while (view.totalAmount === undefined && view.tripPacket.totalAmount !== "99.00" && Date.now() < deadline) {
        await Bun.sleep(20);
        view = (await lookup(h, bravo, b)).body.data;
      }
      expect(view.tripPacket.totalAmount).toBe("99.00");
      expect(view.targetResNo).toBeNull();
      expect(view.tripPacket.transactionErrors.map((e: { errCode: string }) => e.errCode)).toContain("PROVIDER_RES_NO_IN_USE");
      expect((await platform("GET", `getReservationByReservationId/${provider.netid}/${resNo}/V1`, provider)).body.data.transactionId).toBe(a);
    } finally {
      partner.state.respond = undefined;
    }
  });
});

describe("a requester cannot forge fields the exchange or the provider writes", () => {
  const forged = {
    chauffeur: { chauffeurId: "FAKE", firstName: "Fake", lastName: "Driver", phoneNumber: "+19995550100" },
    vehicle: { plateNo: "FAKE-1", make: "Fake" },
    location: { lat: 1, lon: 2, timestamp: "2026-01-01T00:00:00Z" },
    providerUpdate: { griddID: "FAKE-GRID" },
    providerNote: "Confirmed by the provider (not really)",
    providerResCode: "FAKE-CODE",
    userid: "someone-else",
    fromConextId: "SOMEONE-ELSE",
    targetResNo: "FAKE-TARGET",
    requesterExtra: "mine",
  };

  test("B's NEW carrying them shows them to the provider only under requesterExtra; an unreserved member stays where it was sent", async () => {
    const b = await send(bravo, { ...forged, customerTier: "gold" }, { providerResCode: "FAKE-AR-CODE", providerNote: "fake note", providerResNo: "FAKE-NO", ourRef: "x-1" });
    for (const who of [provider, bravo]) {
      const data = (await lookup(h, who, b)).body.data;
      const packet = data.tripPacket;
      for (const key of ["chauffeur", "vehicle", "location", "providerUpdate", "providerNote", "providerResCode", "userid", "fromConextId", "targetResNo"]) expect(packet[key]).toBeUndefined();
      expect(packet.requesterExtra).toEqual(forged);
      expect(packet.customerTier).toBe("gold");
      expect(data.fromConextId).toBe(bravo.netid);
      expect(data.userid).toBe(bravo.netid);
      expect(data.targetResNo).toBeNull();
      const ar = packet.affiliateReservation;
      expect(ar.providerResCode).toBeUndefined();
      expect(ar.providerNote).toBeUndefined();
      expect(ar.providerResNo).toBeUndefined();
      expect(ar.requesterExtra).toEqual({ providerResCode: "FAKE-AR-CODE", providerNote: "fake note", providerResNo: "FAKE-NO" });
      expect(ar.ourRef).toBe("x-1");
    }
    // The platform read and the provider's own endpoint say the same.
    const read = await platform("GET", `getReservationByTransactionId/${b}/V1`, provider);
    expect(read.body.data.tripPacket.chauffeur).toBeUndefined();
    const message = await delivered(b);
    for (const key of ["chauffeur", "vehicle", "location", "providerUpdate", "providerNote", "providerResCode", "userid", "fromConextId"]) expect(message[key]).toBeUndefined();
    expect(message.requesterExtra).toEqual(forged);
    expect(message.customerTier).toBe("gold");
    expect(message.affiliateReservation.providerResCode).toBeUndefined();
    // No position was made up: the chauffeur map has nothing for this booking.
    expect((await platform("GET", `getChauffeurLocationByTransactionId/${b}/V1`, provider)).status).toBe(404);

    // The provider's real details take their places; the requester's copies stay where they were.
    const real = { chauffeurId: "CH-9", firstName: "Real", lastName: "Driver" };
    expect((await providerUpdate(h, provider, b, { status: "CONFIRMED", chauffeur: real, providerNote: "real note" })).status).toBe(200);
    const after = (await lookup(h, bravo, b)).body.data.tripPacket;
    expect(after.chauffeur).toEqual(real);
    expect(after.affiliateReservation.providerNote).toBe("real note");
    expect(after.requesterExtra.chauffeur).toEqual(forged.chauffeur);
  });

  test("an UPDATE cannot slip them in either", async () => {
    const b = await send(bravo);
    const update = regularTrip(bravo.netid, provider.netid, { chauffeur: forged.chauffeur, vehicle: forged.vehicle }, { action: "UPDATE" });
    update.affiliateReservation.requesterResNo = (await lookup(h, bravo, b)).body.data.sourceResNo;
    const res = await sendTrip(h, bravo, update);
    expect(res.status).toBe(200);
    const packet = (await lookup(h, provider, b)).body.data.tripPacket;
    expect(packet.chauffeur).toBeUndefined();
    expect(packet.vehicle).toBeUndefined();
    expect(packet.requesterExtra).toEqual({ chauffeur: forged.chauffeur, vehicle: forged.vehicle });
  });
});
