import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, party, type Party, regularTrip, sendTrip } from "../../support/trips";

// docs/security.md#owned-members: the members the exchange writes — the offer (acceptBy, offers, reason), the terms,
// and those later reads carry (finalFare, evidence, eta, arrivedAt) — cannot be forged by a requester. Its copies are
// kept as its own members under requesterExtra, in the booking read, GNet's read, the webhook and the delivery.
let h: Harness;
let requester: Party, provider: Party;
let partner: ReturnType<typeof startReceiver>;
let hooks: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  h = createHarness({ delivery: FAST_DELIVERY });
  [requester, provider] = await Promise.all([party(h, "OWNED-REQ", "CO"), party(h, "OWNED-PROV", "IO")]);
  partner = startReceiver();
  hooks = startReceiver();
  expect((await integrate(h, provider, { deliveryUrl: `${partner.url}/farm-in` })).status).toBe(200);
  expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks` })).status).toBe(200);
  h.services.worker.start();
});

afterAll(async () => {
  partner.stop();
  hooks.stop();
  await h.close();
});

const OWNED = ["acceptBy", "offers", "reason", "terms", "finalFare", "evidence", "eta", "arrivedAt", "flight"];
/** A requester's copies of every owned member, spelled as the exchange spells them, and one in another case. */
const FORGED = {
  acceptBy: "2099-01-01T00:00:00Z",
  offers: [{ provider: "SOMEONE-ELSE", fee: "1.00", currency: "USD", status: "ACCEPTED", at: "2099-01-01T00:00:00Z" }],
  reason: "NO_PROVIDER_ACCEPTED",
  terms: { freeCancelUntil: "2099-01-01T00:00:00Z" },
  finalFare: { state: "FINAL", until: "2099-01-01T00:00:00Z" },
  evidence: { arrivedAt: "2099-01-01T00:00:00Z", waitedMinutes: 90 },
  eta: { toPickupMinutes: 1, at: "2099-01-01T00:00:00Z" },
  ArrivedAt: "2099-01-01T00:00:00Z",
  // A "last move" that would waive the give-back recovery (docs/flights.md#a-big-move-lets-the-provider-give-the-booking-back).
  flight: { originalPickup: "2099-01-01T00:00:00Z", lastMove: { from: "2099-01-01T00:00:00Z", to: "2099-01-01T05:00:00Z", cause: "FLIGHT_DELAY" } },
};
const AFFILIATE_FORGED = { acceptBy: "2099-01-02T00:00:00Z", finalFare: { state: "FINAL" } };

/** The names of `o` that name an owned member in any letter case, sorted. */
const ownedIn = (o: Record<string, unknown>) => Object.keys(o).filter((k) => OWNED.some((n) => n.toLowerCase() === k.toLowerCase())).sort();

async function arrived(receiver: ReturnType<typeof startReceiver>, match: (json: any) => boolean) {
  const deadline = Date.now() + 5000;
  while (!receiver.received.some((r) => match(r.json)) && Date.now() < deadline) await Bun.sleep(20);
  const got = receiver.received.find((r) => match(r.json))?.json;
  expect(got).toBeDefined();
  return got;
}

describe("members the exchange owns cannot be forged (docs/security.md#owned-members)", () => {
  let id: string;

  test("a NEW's copies stay under requesterExtra in the booking read; the read's own acceptBy and offers are the exchange's", async () => {
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, FORGED, AFFILIATE_FORGED));
    expect(sent.status).toBe(200);
    id = sent.body.transactionId;

    const view = (await lookup(h, requester, id)).body.data;
    expect(view.acceptBy).not.toBe(FORGED.acceptBy);
    expect(Date.parse(view.acceptBy)).toBeLessThan(Date.parse("2099-01-01T00:00:00Z"));
    expect(view.offers.map((o: { provider: string }) => o.provider)).toEqual([provider.netid]);
    expect(view.reason).toBeUndefined();
    // The terms are the exchange's (the provider's default policies), in both places it shows them.
    expect(view.terms.freeCancellationUntil).toBeDefined();
    expect(ownedIn(view.tripPacket)).toEqual(["terms"]);
    expect(view.tripPacket.terms).toEqual(view.terms);
    expect(view.tripPacket.requesterExtra).toEqual(FORGED);
    expect(ownedIn(view.tripPacket.affiliateReservation)).toEqual([]);
    expect(view.tripPacket.affiliateReservation.requesterExtra).toEqual(AFFILIATE_FORGED);
  });

  test("GNet's read shows none of them as the exchange's", async () => {
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: requester.token } });
    expect(gnet.status).toBe(200);
    expect(ownedIn(gnet.body)).toEqual(["acceptBy", "offers", "terms"]);
    expect(gnet.body.acceptBy).toBe(gnet.body.data.acceptBy);
    expect(gnet.body.offers).toEqual(gnet.body.data.offers);
    expect(gnet.body.terms).toEqual(gnet.body.data.terms);
    expect(ownedIn(gnet.body.affiliateReservation)).toEqual([]);
  });

  test("the delivery to the provider carries only the exchange's acceptBy and terms, the requester's copies under requesterExtra", async () => {
    const message = await arrived(partner, (json) => json?.transactionId === id);
    expect(ownedIn(message)).toEqual(["acceptBy", "terms"]);
    expect(message.acceptBy).not.toBe(FORGED.acceptBy);
    expect(message.terms).not.toEqual(FORGED.terms);
    expect(message.requesterExtra).toEqual(FORGED);
    expect(ownedIn(message.affiliateReservation)).toEqual([]);
    expect(message.affiliateReservation.requesterExtra).toEqual(AFFILIATE_FORGED);
  });

  test("the requester's webhook carries them only under requesterExtra", async () => {
    const hook = await arrived(hooks, (json) => json?.data?.transactionId === id);
    expect(ownedIn(hook.data.tripPacket)).toEqual(["terms"]);
    expect(hook.data.tripPacket.terms).toEqual(hook.data.terms);
    expect(hook.data.tripPacket.requesterExtra).toEqual(FORGED);
    expect(hook.data.acceptBy).not.toBe(FORGED.acceptBy);
  });

  test("an UPDATE cannot slip them in either", async () => {
    const sourceResNo = (await lookup(h, requester, id)).body.data.sourceResNo;
    const update = regularTrip(requester.netid, provider.netid, { reason: "ACCEPT_TIMEOUT", Eta: { toPickupMinutes: 0 } }, { action: "UPDATE", requesterResNo: sourceResNo });
    const res = await sendTrip(h, requester, update);
    expect(res.status).toBe(200);
    const view = (await lookup(h, provider, id)).body.data;
    expect(view.reason).toBeUndefined();
    expect(view.lastStatus).toBe("BOOKING_REQUEST");
    expect(ownedIn(view.tripPacket)).toEqual(["terms"]);
    expect(view.tripPacket.requesterExtra).toMatchObject({ reason: "ACCEPT_TIMEOUT", Eta: { toPickupMinutes: 0 } });
  });
});
