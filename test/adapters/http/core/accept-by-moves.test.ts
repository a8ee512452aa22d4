import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, type Harness } from "../../../support/harness";
import { lookup, providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { startReceiver } from "../../../support/receiver";
import { ADA, bearer, bookQuoted, iso, PARK_AVE } from "../../../support/jfk";
import { cascadeWorld, eventually, logWatchFailure, receivedBy, rewinder, watchUntilClaimed } from "../../../support/cascade";
import { watchOffers } from "../../../../domain/usecases/offer-watch";

/**
 * acceptBy stays within the trip when the pickup moves, through HTTP on both databases
 * (docs/terms.md#a-moved-pickup-pulls-acceptby-in, docs/flights.md#the-pickup-follows-the-flight): a pickup moved
 * earlier — by a flight landing early or by the requester's UPDATE — pulls an unaccepted booking's acceptBy in to
 * max(new pickup − 30 min, the move + 5 min), never later than before; the offer watch lapses (and moves) the booking
 * at the new instant, the provider's UPDATE carries it, a changeLogs line says it. A later move, or an accepted
 * booking, keeps acceptBy as it was. The clock is set in the past and moved forward (the outbox sends at real time).
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = rewinder(clock);
let h: Harness;
let maker: Party, p1: Party, p2: Party;
const rx = startReceiver();
let resNo = 0;
const MIN = 60;

/** A trip from JFK at `pickupAt` with flight BA117 scheduled to land 45 min before it. */
const flightTrip = (pickupAt: number) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "JFK", time: iso(pickupAt), flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: iso(pickupAt - 45 * MIN) } },
    dropOff: PARK_AVE,
  },
});
const { received } = receivedBy(rx);
const read = async (id: string) => (await lookup(h, maker, id)).body.data;
const deadlineLines = (data: { tripPacket: { changeLogs: Array<{ changeSource: string; changeDesc: string }> } }) =>
  data.tripPacket.changeLogs.filter((l) => l.changeSource === "exchange" && l.changeDesc.startsWith("acceptBy moved")).map((l) => l.changeDesc);
const landsAt = (who: Party, id: string, at: number) =>
  h.request("POST", `/api/reservation/${id}/flight-status`, { headers: bearer(who), body: { estimatedArrival: iso(at) } });
const watch = () => watchUntilClaimed(h.services.offers, 50, 20, logWatchFailure);

/** A plain NEW (no vehicle held) from the requester to p1, picked up at `pickupAt`. */
async function regular(pickupAt: number) {
  const requesterResNo = `AB-${++resNo}`;
  const res = await sendTrip(h, maker, {
    reservationType: "REGULAR",
    ...flightTrip(pickupAt),
    passengers: ADA,
    affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: p1.netid, action: "NEW" },
  });
  expect(res.status).toBe(200);
  return { id: res.body.transactionId as string, requesterResNo };
}

beforeAll(async () => {
  ({ h, maker, p1, p2 } = await cascadeWorld(
    clock,
    rx,
    ["AB-BOOK", "AB-ONE", "AB-TWO", "AB-THREE"],
    [["ab-one-sedan", "50.00", "SEDAN"], ["ab-two-sedan", "60.00", "SEDAN"], ["ab-three-sedan", "70.00", "SEDAN"]],
    { webhooks: false },
  ));
}, 60_000);

afterAll(async () => {
  await h.close();
  rx.stop();
});

describe("a moved pickup pulls acceptBy in (docs/terms.md#a-moved-pickup-pulls-acceptby-in)", () => {
  test("a flight landing early pulls acceptBy in; the provider's UPDATE carries it; the offer lapses then, and the move to the next provider counts from the new pickup", async () => {
    rewind(4 * 3600);
    const booked = clock.now();
    const pickupAt = booked + 3 * 3600;
    const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: flightTrip(pickupAt) });
    expect(q.status).toBe(200);
    const option = (q.body.data.options as Array<{ provider: { netid: string }; quoteOptionId: string }>).find((o) => o.provider.netid === p1.netid)!;
    const res = await bookQuoted(h, maker, q.body.data.quoteId, option.quoteOptionId, `AB-${++resNo}`, { fallback: { maxFee: "1000.00" } });
    expect(res.status).toBe(200);
    const id = res.body.transactionId as string;
    expect((await read(id)).acceptBy).toBe(iso(booked + 30 * MIN));

    // The flight now lands at booked + 5 min: the pickup moves to booked + 50 min, acceptBy to 30 min before it.
    clock.advance(MIN);
    const moved = await landsAt(p1, id, booked + 5 * MIN);
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ moved: true, move: { cause: "FLIGHT_EARLY" } });
    const newAcceptBy = booked + 20 * MIN;
    let data = await read(id);
    expect(data).toMatchObject({ providerId: p1.netid, lastStatus: "BOOKING_REQUEST", acceptBy: iso(newAcceptBy) });
    expect(deadlineLines(data)).toEqual([
      `acceptBy moved from ${iso(booked + 30 * MIN)} to ${iso(newAcceptBy)}: the pickup moved to ${iso(booked + 50 * MIN)}`,
    ]);
    await eventually(() => received("/p1", id).some((m) => m.json.affiliateReservation?.action === "UPDATE" && m.json.acceptBy === iso(newAcceptBy)));

    // Not due a second before the new acceptBy; lapsed at it, before the watch acts and by the watch.
    clock.t = newAcceptBy - 1;
    expect((await watchOffers(h.services.offers, logWatchFailure)).moved).toBe(0);
    expect((await read(id)).providerId).toBe(p1.netid);
    clock.t = newAcceptBy;
    const late = await providerUpdate(h, p1, id, { status: "CONFIRMED" });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ success: false, code: "OFFER_LAPSED", acceptBy: iso(newAcceptBy) });
    expect((await watch()).moved).toBe(1);
    data = await read(id);
    // The next provider's deadline counts from the moved pickup: 5 min, as it is 30 min away.
    expect(data).toMatchObject({ providerId: p2.netid, lastStatus: "BOOKING_REQUEST", acceptBy: iso(newAcceptBy + 5 * MIN) });
    await eventually(() => received("/p1", id).some((m) => m.json.affiliateReservation?.action === "CANCEL"));
  });

  test("a flight landing late leaves acceptBy as it was", async () => {
    rewind(3600);
    const booked = clock.now();
    const pickupAt = booked + 30 * 3600;
    const { id } = await regular(pickupAt);
    expect((await read(id)).acceptBy).toBe(iso(booked + 4 * 3600));
    clock.advance(MIN);
    const moved = await landsAt(p1, id, pickupAt + 60 * MIN - 45 * MIN);
    expect(moved.body.data).toMatchObject({ moved: true, move: { cause: "FLIGHT_DELAY" } });
    const data = await read(id);
    expect(data.acceptBy).toBe(iso(booked + 4 * 3600));
    expect(deadlineLines(data)).toEqual([]);
  });

  test("a move so close that pickup − 30 min has passed gives the provider 5 min from the move, never more than it had", async () => {
    rewind(3600);
    const booked = clock.now();
    const { id } = await regular(booked + 10 * 3600);
    expect((await read(id)).acceptBy).toBe(iso(booked + 30 * MIN));
    clock.advance(2 * MIN);
    // Pickup now 20 min away: pickup − 30 min lies in the past.
    expect((await landsAt(p1, id, booked + 22 * MIN - 45 * MIN)).status).toBe(200);
    expect((await read(id)).acceptBy).toBe(iso(booked + 7 * MIN));
  });

  test("the requester's UPDATE moving the pickup earlier pulls acceptBy in; one moving it later does not", async () => {
    rewind(3600);
    const booked = clock.now();
    const { id, requesterResNo } = await regular(booked + 10 * 3600);
    expect((await read(id)).acceptBy).toBe(iso(booked + 30 * MIN));
    const update = (pickupAt: number) =>
      sendTrip(h, maker, {
        locations: flightTrip(pickupAt).locations,
        affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: p1.netid, action: "UPDATE" },
      });
    clock.advance(MIN);
    expect((await update(booked + 12 * 3600)).status).toBe(200);
    expect((await read(id)).acceptBy).toBe(iso(booked + 30 * MIN));
    expect((await update(booked + 45 * MIN)).status).toBe(200);
    const data = await read(id);
    expect(data.acceptBy).toBe(iso(booked + 15 * MIN));
    expect(deadlineLines(data)).toEqual([`acceptBy moved from ${iso(booked + 30 * MIN)} to ${iso(booked + 15 * MIN)}: the pickup moved to ${iso(booked + 45 * MIN)}`]);
    await eventually(() => received("/p1", id).some((m) => m.json.affiliateReservation?.action === "UPDATE" && m.json.acceptBy === iso(booked + 15 * MIN)));
  });

  test("an accepted booking keeps its acceptBy when the flight lands early", async () => {
    rewind(3600);
    const booked = clock.now();
    const { id } = await regular(booked + 10 * 3600);
    expect((await providerUpdate(h, p1, id, { status: "CONFIRMED" })).status).toBe(200);
    clock.advance(MIN);
    expect((await landsAt(p1, id, booked + 50 * MIN - 45 * MIN)).status).toBe(200);
    const data = await read(id);
    expect(data).toMatchObject({ lastStatus: "CONFIRMED", acceptBy: iso(booked + 30 * MIN) });
    expect(deadlineLines(data)).toEqual([]);
  });
});
