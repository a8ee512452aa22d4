import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startReceiver } from "../../support/receiver";
import { integrate, lookup, party, type Party, regularTrip, sendTrip } from "../../support/trips";

// docs/security.md#booking-ownership-and-size (issue 37 N6): field ownership ignores letter case. A requester's `Chauffeur`, `PROVIDERRESNO`,
// `ProviderResNo` … are its own members, kept under requesterExtra on every path: the booking view, GNet's read shape
// and the delivery to the provider (farm-in).
let h: Harness;
let requester: Party, provider: Party;
let partner: ReturnType<typeof startReceiver>;

beforeAll(async () => {
  h = createHarness({ delivery: FAST_DELIVERY });
  [requester, provider] = await Promise.all([party(h, "CASE-REQ", "CO"), party(h, "CASE-PROV", "IO")]);
  partner = startReceiver();
  expect((await integrate(h, provider, { deliveryUrl: `${partner.url}/farm-in` })).status).toBe(200);
  h.services.worker.start();
});

afterAll(async () => {
  partner.stop();
  await h.close();
});

const FAKE_CHAUFFEUR = { firstName: "Fake", lastName: "Driver", phoneNumber: "+15550000000" };
const TOP = { Chauffeur: FAKE_CHAUFFEUR, PROVIDERRESNO: "FAKE-1", ProviderNote: "fake note", VEHICLE: { plateNo: "FAKE" }, Status: "CONFIRMED" };
const AFFILIATE = { ProviderResNo: "FAKE-2", PROVIDERRESCODE: "FAKE-3", ResNo: "FAKE-4" };

/** The names of `o` compared without letter case. */
const lower = (o: Record<string, unknown>) => Object.keys(o).map((k) => k.toLowerCase());

/** No member of `o` other than requesterExtra names one of `names` in any letter case. */
function expectNone(o: Record<string, unknown>, names: string[]) {
  const keys = lower(o);
  for (const name of names) expect(keys.filter((k) => k === name.toLowerCase())).toEqual([]);
}

describe("field ownership ignores letter case (docs/security.md#booking-ownership-and-size)", () => {
  test("a requester's Chauffeur, PROVIDERRESNO, ProviderResNo … stay under requesterExtra in the view, GNet's read and the delivery", async () => {
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, TOP, AFFILIATE));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;

    const view = (await lookup(h, requester, id)).body.data;
    expectNone(view.tripPacket, ["chauffeur", "providerResNo", "providerNote", "vehicle"]);
    expect(view.tripPacket.requesterExtra).toMatchObject({ Chauffeur: FAKE_CHAUFFEUR, PROVIDERRESNO: "FAKE-1", VEHICLE: { plateNo: "FAKE" } });
    expectNone(view.tripPacket.affiliateReservation, ["providerResNo", "providerResCode", "resNo"]);
    expect(view.tripPacket.affiliateReservation.requesterExtra).toEqual(AFFILIATE);
    expect(view.targetResNo).toBeNull();
    expect(view.lastStatus).toBe("BOOKING_REQUEST");

    // GNet's read shape: only the exchange's own (empty) chauffeur, vehicle and note, none of the requester's copies.
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: requester.token } });
    expect(gnet.status).toBe(200);
    for (const name of Object.keys(TOP)) expect(Object.keys(gnet.body)).not.toContain(name);
    expect(gnet.body).toMatchObject({ chauffeur: null, vehicle: null, providerNote: "" });
    expect(gnet.body.affiliateReservation.providerResNo).toBe("");
    expect(Object.keys(gnet.body.affiliateReservation)).not.toContain("ProviderResNo");
    expect(Object.keys(gnet.body.affiliateReservation)).not.toContain("PROVIDERRESCODE");

    // The provider's endpoint (farm-in) gets them only as the requester's members.
    const deadline = Date.now() + 5000;
    while (!partner.received.some((r) => r.json?.transactionId === id) && Date.now() < deadline) await Bun.sleep(20);
    const message = partner.received.find((r) => r.json?.transactionId === id)?.json;
    expect(message).toBeDefined();
    expectNone(message, ["chauffeur", "providerResNo", "providerNote", "vehicle"]);
    expect(message.requesterExtra).toMatchObject({ Chauffeur: FAKE_CHAUFFEUR, PROVIDERRESNO: "FAKE-1" });
    expectNone(message.affiliateReservation, ["providerResNo", "providerResCode", "resNo"]);
    expect(message.affiliateReservation.requesterExtra).toEqual(AFFILIATE);
  });
});
