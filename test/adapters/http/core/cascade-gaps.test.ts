import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock, type Harness } from "../../../support/harness";
import { providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { startReceiver } from "../../../support/receiver";
import { bearer, bookQuoted, iso, jfkTrip } from "../../../support/jfk";
import { cascadeWorld, eventually, receivedBy, rewinder, watchUntilClaimed } from "../../../support/cascade";
import { HoldIndex, type VehicleHolds } from "../../../../domain/fleet/holds";

/**
 * The cascade's edges through HTTP (docs/terms.md#the-cascade-fallback, docs/fx.md#what-a-network-quote-shows, docs/gnet.md#wire-compatibility-in-detail): a move swaps the vehicle hold in the booking's own
 * transaction (a next vehicle taken inside it keeps nothing and the next option is tried), held for the trip through its stops; `fallback.maxFee` in the
 * converted currency a quote showed; GNet-shaped reads show acceptBy, offers and reason; a requester's UPDATE naming the
 * provider it booked keeps working after the booking moved.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = rewinder(clock);
let h: Harness;
let maker: Party, p1: Party, p2: Party, p3: Party;
const rx = startReceiver();

let day = 0;
const trip = () => jfkTrip(iso(clock.now() + 6 * 3600 + ++day * 86_400));
type Option = { provider: { netid: string }; quoteOptionId: string; code: string; fee: string; currency: string; converted?: { fee: string; currency: string } };
let resNo = 0;

/** A network quote (with `over`, e.g. a display currency) and p1's option of it booked with `fallback`. */
async function quoteAndBook(maxFee: (options: Option[]) => string, over: Record<string, unknown> = {}) {
  const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: { ...trip(), ...over } });
  expect(q.status).toBe(200);
  const options = q.body.data.options as Option[];
  const option = options.find((o) => o.provider.netid === p1.netid)!;
  const requesterResNo = `GAP-${++resNo}`;
  const res = await bookQuoted(h, maker, q.body.data.quoteId, option.quoteOptionId, requesterResNo, { fallback: { maxFee: maxFee(options) } });
  expect(res.status).toBe(200);
  const of = (who: Party) => options.find((o) => o.provider.netid === who.netid)!;
  return { id: res.body.transactionId as string, requesterResNo, of };
}
const holdsOf = (id: string) => h.rows<{ slug: string; provider: string }>("SELECT slug, provider_netid AS provider FROM vehicle_holds WHERE transaction_id = ?", id);
const read = async (id: string) => (await h.request("GET", `/api/reservation/${id}`, { headers: bearer(maker) })).body.data;
const { received } = receivedBy(rx);
/** One watch pass that found something due, tried for up to two seconds. */
const watch = (offers = h.services.offers) => watchUntilClaimed(offers, 100, 20);

beforeAll(async () => {
  ({ h, maker, p1, p2, p3 } = await cascadeWorld(
    clock,
    rx,
    ["GAP-BOOK", "GAP-ONE", "GAP-TWO", "GAP-THREE"],
    [["gap-one-car", "50.00", "SEDAN"], ["gap-two-car", "60.00", "SEDAN"], ["gap-three-car", "70.00", "SEDAN"]],
    { webhooks: false },
  ));
}, 60_000);

afterAll(async () => {
  await h.close();
  rx.stop();
});

describe("the move's hold swap is part of its transaction", () => {
  test("a move holds the next vehicle and frees the last one in the booking's transaction", async () => {
    rewind(600);
    const { id, of } = await quoteAndBook(() => "1000.00");
    expect(await holdsOf(id)).toEqual([{ slug: of(p1).code, provider: p1.netid }]);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect((await read(id)).providerId).toBe(p2.netid);
    expect(await holdsOf(id)).toEqual([{ slug: of(p2).code, provider: p2.netid }]);
  });

  test("a move holds the next vehicle for the trip through its stops, as long as the first was held", async () => {
    rewind(600);
    const stops = [
      { locationType: "address", address: "Newark Penn Station", lat: "40.7347", lon: "-74.1644" },
      { locationType: "address", address: "City Hall, Philadelphia", lat: "39.9526", lon: "-75.1635" },
    ];
    const { id, of } = await quoteAndBook(() => "1000.00", { locations: { ...trip().locations, stops } });
    const span = async () => {
      const [row] = await h.rows<{ from: number | string; to: number | string }>("SELECT starts_at AS \"from\", ends_at AS \"to\" FROM vehicle_holds WHERE transaction_id = ?", id);
      return (Number(row.to) - Number(row.from)) / 3600;
    };
    // About 377 km of road at 50 km/h, rounded up to the quarter hour, plus the 30-minute turnaround.
    const first = await span();
    expect(first).toBe(8.25);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect(await holdsOf(id)).toEqual([{ slug: of(p2).code, provider: p2.netid }]);
    expect(await span()).toBe(first);
  });

  test("a write whose next vehicle is held by another booking keeps nothing: 409 VEHICLE_UNAVAILABLE, booking and hold as they were", async () => {
    rewind(600);
    const { id, of } = await quoteAndBook(() => "1000.00");
    const other = await quoteAndBook(() => "1000.00");
    const before = await read(id);
    const busy = (await holdsOf(other.id))[0];
    const hold = { slug: busy.slug, provider: busy.provider, requester: "CG-REQ", transactionId: id, from: 0, to: 4_000_000_000, at: clock.now() };
    const attempt = h.services.offers.bookings.change({ transactionId: id }, (current) => ({
      result: "moved",
      write: { booking: { ...current!, providerId: p3.netid, updatedAt: clock.now() }, events: [], hold },
    }));
    await expect(attempt).rejects.toMatchObject({ code: "VEHICLE_UNAVAILABLE" });
    const after = await read(id);
    expect({ providerId: after.providerId, timestamp: after.timestamp }).toEqual({ providerId: before.providerId, timestamp: before.timestamp });
    expect(await holdsOf(id)).toEqual([{ slug: of(p1).code, provider: p1.netid }]);
  });

  test("the next vehicle taken between the look and the move (a blackout): the transaction refuses it, the next option is taken", async () => {
    rewind(600);
    const { id, of } = await quoteAndBook(() => "1000.00");
    const when = await h.rows<{ from: number | string; to: number | string }>("SELECT starts_at AS \"from\", ends_at AS \"to\" FROM vehicle_holds WHERE transaction_id = ?", id);
    const blackout = await h.request("POST", `/api/fleet/${of(p2).code}/blackouts`, {
      headers: bearer(p2),
      body: { from: iso(Number(when[0].from)), to: iso(Number(when[0].to)), reason: "service" },
    });
    expect(blackout.status).toBe(201);
    // The watch's look says every vehicle is free (as it was a moment before): only the move's transaction sees the blackout.
    const store = h.services.offers.holds!.store;
    const blind: VehicleHolds = Object.assign(Object.create(store), { scheduleOf: async () => [] });
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch({ ...h.services.offers, holds: new HoldIndex(blind) })).moved).toBe(1);
    const data = await read(id);
    expect(data.providerId).toBe(p3.netid);
    expect(data.offers.map((o: { provider: string }) => o.provider)).toEqual([p1.netid, p3.netid]);
    expect(await holdsOf(id)).toEqual([{ slug: of(p3).code, provider: p3.netid }]);
  });
});

describe("fallback.maxFee in the converted currency (docs/terms.md#the-cascade-fallback, docs/fx.md#what-a-network-quote-shows)", () => {
  test("a booking from an option shown converted compares the next options' converted fees with maxFee", async () => {
    rewind(600);
    // Between TWO's converted fee and its own USD fee: within the cap only as converted; THREE is above it either way.
    const { id, of } = await quoteAndBook(
      (options) => {
        const two = options.find((o) => o.provider.netid === p2.netid)!;
        expect(two.converted).toMatchObject({ currency: "EUR" });
        expect(Number(two.converted!.fee)).toBeLessThan(Number(two.fee));
        return ((Number(two.converted!.fee) + Number(two.fee)) / 2).toFixed(2);
      },
      { currency: "EUR" },
    );
    expect(Number(of(p3).converted!.fee)).toBeGreaterThan((Number(of(p2).converted!.fee) + Number(of(p2).fee)) / 2);
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    const data = await read(id);
    expect(data).toMatchObject({ providerId: p2.netid, tripPacket: { totalAmount: of(p2).fee } });
    // The amount shown converted is the current option's.
    expect(data.tripPacket.convertedAmount).toMatchObject({ fee: of(p2).converted!.fee, currency: "EUR" });
    expect((await providerUpdate(h, p2, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).ended).toBe(1);
    expect(await read(id)).toMatchObject({ lastStatus: "REJECT", reason: "NO_PROVIDER_ACCEPTED", providerId: p2.netid });
  });
});

describe("GNet-shaped reads and the requester's UPDATE after a move", () => {
  test("getReservation… show acceptBy, offers and reason at the top level; an UPDATE naming the first provider goes to the current one", async () => {
    rewind(600);
    const { id, requesterResNo } = await quoteAndBook(() => "1000.00");
    expect((await providerUpdate(h, p1, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    const gnet = await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: maker.token } });
    expect(gnet.status).toBe(200);
    expect(gnet.body.acceptBy).toBe(gnet.body.data.acceptBy);
    expect(gnet.body.offers).toEqual(gnet.body.data.offers);
    expect(gnet.body.offers.map((o: { provider: string }) => o.provider)).toEqual([p1.netid, p2.netid]);
    expect(gnet.body.affiliateReservation.providerId).toBe(p2.netid);

    const update = await sendTrip(h, maker, {
      specialInstructions: "Child seat, please",
      affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: p1.netid, action: "UPDATE" },
    });
    expect(update.status).toBe(200);
    const data = await read(id);
    expect(data).toMatchObject({ providerId: p2.netid, tripPacket: { specialInstructions: "Child seat, please" } });
    await eventually(() => received("/p2", id).some((m) => m.json.affiliateReservation?.action === "UPDATE"));
    expect(received("/p1", id).filter((m) => m.json.affiliateReservation?.action === "UPDATE")).toEqual([]);
    // A provider the booking was never offered to is still refused.
    const stranger = await sendTrip(h, maker, {
      specialInstructions: "x",
      affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: p3.netid, action: "UPDATE" },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.errors.map((e: { field: string }) => e.field)).toEqual(["affiliateReservation.providerId"]);

    // Ended by the exchange: the GNet read carries the reason, by reservation number too.
    expect((await providerUpdate(h, p2, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    expect((await providerUpdate(h, p3, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).ended).toBe(1);
    const byResNo = await h.request("GET", `/Platform.svc/getReservationByReservationId/${maker.netid}/${requesterResNo}/V1`, { headers: { token: maker.token } });
    expect(byResNo.status).toBe(200);
    expect(byResNo.body).toMatchObject({ status: "REJECT", reason: "NO_PROVIDER_ACCEPTED" });
    expect(byResNo.body.offers).toHaveLength(3);
  });
});
