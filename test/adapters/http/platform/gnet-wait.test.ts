import { afterEach, describe, expect, test } from "bun:test";
import { createHarness } from "../../../support/harness";
import { nextResNo, parties, providerUpdate, sendTrip } from "../../../support/trips";
import { startSandboxDispatcher } from "../../../../src/services";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A GNet requester's booking with submitMode WAIT, its own fixture: an hourly run from a hotel. */
function waitingTrip(requesterId: string, providerId: string) {
  return {
    reservationType: "REGULAR",
    runType: "Hourly",
    reservationDate: "-07:00",
    passengerCount: "4",
    preferredVehicleType: "SPRINTER",
    totalTripDuration: "240",
    submitMode: "WAIT",
    locations: {
      pickup: { locationType: "address", address: "3570 Las Vegas Blvd S, Las Vegas, NV 89109", city: "Las Vegas", state: "NV", country: "US", lat: 36.1162, lon: -115.1745, time: "2027-04-02T18:00:00" },
      dropOff: { locationType: "airport", address: "LAS", landmark: "Harry Reid International", country: "US" },
    },
    passengers: [{ firstName: "Mireille", lastName: "Dubois", phoneNumber: "+17025550117" }],
    affiliateReservation: { requesterId, requesterResNo: nextResNo(), providerId, action: "NEW", notes: "" },
  };
}

describe("submitMode WAIT answers a reservation number that arrives within its wait, from a provider working on the exchange", () => {
  test("a sandbox provider gives its number at once: WAIT answers it well before the sandbox confirms", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h, "-SBXW");
    expect(await h.services.sandboxes.setSandbox(provider.netid, true)).toBe(true);
    cleanups.push(startSandboxDispatcher(h.services));
    const started = Date.now();
    const sent = await sendTrip(h, requester, waitingTrip(requester.netid, provider.netid));
    const took = Date.now() - started;
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    expect(sent.body.reservationId).toBe(`SBX-${id.slice(-8).toUpperCase()}`);
    // The default sandbox confirms after 4 s; its number came with its first acknowledgement.
    expect(took).toBeLessThan(4000);
    const read = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: requester.token } });
    expect(read.body.affiliateReservation.providerResNo).toBe(sent.body.reservationId);
    expect(read.body.data.targetResNo).toBe(sent.body.reservationId);
  }, 30_000);

  test("an on-exchange provider's first update that sets providerResNo during the wait is the answer", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h, "-ONXW");
    const body = waitingTrip(requester.netid, provider.netid);
    const waiting = sendTrip(h, requester, body);
    // The provider's dispatcher sees the new booking in its list and confirms it with its number.
    let id: string | undefined;
    const deadline = Date.now() + 5000;
    while (!id && Date.now() < deadline) {
      const list = await h.request("GET", `/api/reservations?role=provider&requesterResNo=${body.affiliateReservation.requesterResNo}`, { headers: { authorization: `Bearer ${provider.jwt}` } });
      id = list.body.data?.items?.[0]?.transactionId;
      if (!id) await Bun.sleep(20);
    }
    expect(id).toBeString();
    expect((await providerUpdate(h, provider, id!, { status: "CONFIRMED", resNo: "LV-20417", totalAmount: "480.00" })).status).toBe(200);
    const sent = await waiting;
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, transactionId: id, reservationId: "LV-20417", status: "CONFIRMED", totalAmount: "480.00" });
  }, 30_000);

  test("without WAIT, nothing waits: the answer comes before any provider update", async () => {
    const h = createHarness();
    cleanups.push(() => h.close());
    const { requester, provider } = await parties(h, "-ASYW");
    const started = Date.now();
    const sent = await sendTrip(h, requester, { ...waitingTrip(requester.netid, provider.netid), submitMode: "ASYNC" });
    expect(sent.status).toBe(200);
    expect(sent.body.reservationId).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
