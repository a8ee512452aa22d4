import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { ADA, bearer, bookQuoted, jfkSedans, jfkTrip, scheduleOn } from "../../../support/jfk";
import { party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * Availability that cannot be hoarded, through HTTP (docs/availability.md#until-acceptance-holds-lapse-at-acceptby,
 * docs/availability.md#hold-limits, docs/availability.md#releasing-a-requesters-pending-requests): an unaccepted
 * booking holds its vehicle until its acceptBy only; a requester keeps at most 10 unaccepted holding bookings with one
 * provider and 50 in all on FREE (the next is 429 HOLD_LIMIT, nothing booked), even when it races; a provider releases
 * a requester's pending requests without them counting on its record; a booked duration is at most 24 h.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let hoarder: Party, racer: Party, wide: Party, other: Party, pro: Party;
let big: Party, lapse: Party;
const small: Party[] = [];

const passengers = ADA;
const trip = jfkTrip;
type Option = { quoteOptionId: string; code: string; provider: { netid: string } };
async function optionsOf(who: Party, time: string, provider: Party): Promise<{ quoteId: string; options: Option[] }> {
  const res = await h.request("POST", "/api/quotes", { headers: bearer(who), body: trip(time) });
  expect(res.status).toBe(200);
  return { quoteId: res.body.data.quoteId, options: res.body.data.options.filter((o: Option) => o.provider.netid === provider.netid) };
}
let resNo = 0;
const book = (who: Party, quoteId: string, option: Option, extra: Record<string, unknown> = {}) =>
  bookQuoted(h, who, quoteId, option.quoteOptionId, `HL-${++resNo}`, extra);
/** Books every option of `provider` a quote at `time` offers `who` (at most `max`); the answers' statuses. */
async function bookAll(who: Party, time: string, provider: Party, max = 5): Promise<number[]> {
  const { quoteId, options } = await optionsOf(who, time, provider);
  const statuses: number[] = [];
  for (const o of options.slice(0, max)) statuses.push((await book(who, quoteId, o)).status);
  return statuses;
}
const schedule = (who: Party, slug: string, day: string) => scheduleOn(h, who, slug, day);

beforeAll(async () => {
  h = createHarness({ clock });
  [hoarder, racer, wide, other, pro, big, lapse] = await Promise.all([
    party(h, "HL-HOARD", "CO"),
    party(h, "HL-RACE", "CO"),
    party(h, "HL-WIDE", "CO"),
    party(h, "HL-OTHER", "CO"),
    party(h, "HL-PRO", "CO"),
    party(h, "HL-BIG", "IO"),
    party(h, "HL-LAPSE", "IO"),
  ]);
  small.push(...(await Promise.all([1, 2, 3, 4, 5].map((i) => party(h, `HL-SMALL${i}`, "IO")))));
  await jfkSedans(h, big.netid, Array.from({ length: 12 }, (_, i) => `hl-big-${i + 1}`));
  await jfkSedans(h, lapse.netid, ["hl-lapse-1"]);
  for (const [i, p] of small.entries()) await jfkSedans(h, p.netid, [`hl-s${i + 1}-a`, `hl-s${i + 1}-b`]);
  await h.services.companies.setPlan(pro.netid, "PROFESSIONAL");
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("an unaccepted booking holds its vehicle until its acceptBy only", () => {
  test("past acceptBy the hold is gone from the schedule, quotes and the booking check alike; accepting then is 409 OFFER_LAPSED", async () => {
    const first = await optionsOf(hoarder, "2027-03-01T08:00:00", lapse);
    const booked = await book(hoarder, first.quoteId, first.options[0], { acceptWithinMinutes: 10 });
    expect(booked.status).toBe(200);
    const id = booked.body.transactionId;
    expect((await schedule(lapse, "hl-lapse-1", "2027-03-01")).body.data.holds).toEqual([expect.objectContaining({ kind: "BOOKING", transactionId: id })]);
    const early = await optionsOf(other, "2027-03-01T08:00:00", lapse);
    expect(early.options).toEqual([]);

    clock.advance(11 * 60);
    // Quotes read a copy of the holds at most a second old.
    await Bun.sleep(1100);
    expect((await schedule(lapse, "hl-lapse-1", "2027-03-01")).body.data.holds).toEqual([]);
    const late = await optionsOf(other, "2027-03-01T08:00:00", lapse);
    expect(late.options.map((o) => o.code)).toEqual(["hl-lapse-1"]);
    const taken = await book(other, late.quoteId, late.options[0]);
    expect(taken.status).toBe(200);

    // The lapsed provider cannot accept any more: the vehicle is the other requester's now.
    const confirm = await providerUpdate(h, lapse, id, { status: "CONFIRMED" });
    expect(confirm.status).toBe(409);
    expect(confirm.body).toMatchObject({ success: false, code: "OFFER_LAPSED" });
    const read = await h.request("GET", `/api/reservation/${id}`, { headers: bearer(hoarder) });
    expect(read.body.data.tripPacket.resStatus).toBe("Pending");
    expect((await schedule(lapse, "hl-lapse-1", "2027-03-01")).body.data.holds).toEqual([expect.objectContaining({ transactionId: taken.body.transactionId })]);
  });
});

describe("hold limits", () => {
  test("FREE: the 11th unaccepted booking holding a vehicle of one provider is 429 HOLD_LIMIT, nothing booked; others still book", async () => {
    expect(await bookAll(hoarder, "2027-04-01T08:00:00", big)).toEqual([200, 200, 200, 200, 200]);
    expect(await bookAll(hoarder, "2027-04-01T08:00:00", big)).toEqual([200, 200, 200, 200, 200]);
    const next = await optionsOf(hoarder, "2027-04-01T08:00:00", big);
    expect(next.options.length).toBe(2);
    const before = await h.count("bookings");
    const refused = await book(hoarder, next.quoteId, next.options[0]);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "HOLD_LIMIT", limit: 10, scope: "provider", provider: big.netid });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await h.count("bookings")).toBe(before);
    // The vehicle stays free: another requester books it.
    const theirs = await optionsOf(other, "2027-04-01T08:00:00", big);
    expect(theirs.options.map((o) => o.code)).toContain(next.options[0].code);
    expect((await book(other, theirs.quoteId, theirs.options.find((o) => o.code === next.options[0].code)!)).status).toBe(200);
    // A plain NEW holds no vehicle and is not counted.
    const plain = await sendTrip(h, hoarder, {
      reservationType: "REGULAR",
      ...trip("2027-04-02T08:00:00"),
      passengers,
      affiliateReservation: { requesterId: hoarder.netid, requesterResNo: "HL-PLAIN", providerId: big.netid, action: "NEW" },
    });
    expect(plain.status).toBe(200);
  });

  test("an accepted booking no longer counts: the provider's CONFIRMED makes room for one more", async () => {
    const mine = await h.rows<{ id: string }>(
      "SELECT transaction_id AS id FROM bookings WHERE requester_id = ? AND provider_id = ? AND status = 'BOOKING_REQUEST' ORDER BY transaction_id LIMIT 1",
      hoarder.netid,
      big.netid,
    );
    expect((await providerUpdate(h, big, mine[0].id, { status: "CONFIRMED" })).status).toBe(200);
    const next = await optionsOf(hoarder, "2027-04-03T08:00:00", big);
    expect((await book(hoarder, next.quoteId, next.options[0])).status).toBe(200);
    expect((await book(hoarder, next.quoteId, next.options[1])).status).toBe(429);
  });

  test("PROFESSIONAL keeps 50 with one provider", async () => {
    for (const day of ["05", "06"]) expect(await bookAll(pro, `2027-05-${day}T08:00:00`, big)).toEqual([200, 200, 200, 200, 200]);
    expect(await bookAll(pro, "2027-05-07T08:00:00", big, 1)).toEqual([200]);
  });

  test("50 with all providers together: the 51st is 429 HOLD_LIMIT scope all", async () => {
    for (const day of ["10", "11", "12", "13", "14"])
      for (const p of small) expect(await bookAll(wide, `2027-06-${day}T08:00:00`, p)).toEqual([200, 200]);
    const next = await optionsOf(wide, "2027-06-10T08:00:00", big);
    const refused = await book(wide, next.quoteId, next.options[0]);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "HOLD_LIMIT", limit: 50, scope: "all" });
    expect(refused.body.provider).toBeUndefined();
  }, 60_000);

  test("racing bookings of one requester: exactly 10 win, the rest are 429", async () => {
    const quotes = await Promise.all(["2027-07-01", "2027-07-02", "2027-07-03"].map((d) => optionsOf(racer, `${d}T08:00:00`, big)));
    const attempts = quotes.flatMap((q) => q.options.slice(0, 5).map((o) => ({ quoteId: q.quoteId, o })));
    expect(attempts.length).toBe(15);
    const before = await h.count("bookings");
    const answers = await Promise.all(attempts.map((a) => book(racer, a.quoteId, a.o)));
    expect(answers.filter((a) => a.status === 200).length).toBe(10);
    expect(answers.filter((a) => a.status === 429).length).toBe(5);
    expect(await h.count("bookings")).toBe(before + 10);
  });
});

describe("a provider releases a requester's pending requests", () => {
  test("each becomes REJECT RELEASED, the vehicles are free, the requester may book again, the provider's record leaves them out", async () => {
    // Records are kept 5 minutes (quotes read them too): read afresh.
    clock.advance(301);
    const recordBefore = (await h.request("GET", `/api/providers/${big.netid}/record`, { headers: bearer(other) })).body.data.bookings;
    const pending = await h.rows<{ id: string }>(
      "SELECT transaction_id AS id FROM bookings WHERE requester_id = ? AND provider_id = ? AND status = 'BOOKING_REQUEST'",
      racer.netid,
      big.netid,
    );
    expect(pending.length).toBe(10);
    // Another company (not the provider) releases nothing of it.
    const stranger = await h.request("POST", `/api/requesters/${racer.netid}/release`, { headers: bearer(lapse) });
    expect(stranger.status).toBe(200);
    expect(stranger.body.data).toEqual({ requester: racer.netid, released: [], more: false });
    const unknown = await h.request("POST", "/api/requesters/NO-SUCH-CO/release", { headers: bearer(big) });
    expect(unknown.body.data).toEqual({ requester: "NO-SUCH-CO", released: [], more: false });

    const res = await h.request("POST", `/api/requesters/${racer.netid.toLowerCase()}/release`, { headers: { token: big.token } });
    expect(res.status).toBe(200);
    expect(res.body.data.released.sort()).toEqual(pending.map((p) => p.id).sort());
    expect(res.body.data.more).toBe(false);
    const read = await h.request("GET", `/api/reservation/${pending[0].id}`, { headers: bearer(racer) });
    expect(read.body.data).toMatchObject({ reason: "RELEASED" });
    expect(read.body.data.tripPacket.resStatus).toBe("Rejected");
    expect((await schedule(big, "hl-big-1", "2027-07-01")).body.data.holds).toEqual([]);
    // Room again for the requester.
    expect(await bookAll(racer, "2027-07-01T08:00:00", big, 1)).toEqual([200]);
    // A second call finds only the new booking.
    const again = await h.request("POST", `/api/requesters/${racer.netid}/release`, { headers: bearer(big) });
    expect(again.body.data.released.length).toBe(1);

    clock.advance(301);
    const recordAfter = (await h.request("GET", `/api/providers/${big.netid}/record`, { headers: bearer(other) })).body.data.bookings;
    // The ten released and the one released again are left out of the provider's record.
    expect(recordAfter).toBe(recordBefore - 10);
  });
});

describe("a booked duration is at most 24 h", () => {
  test("totalTripDuration over 1,440 minutes is 400 naming it, on quotes, bookings and UPDATEs; 1,440 is taken", async () => {
    const quote = await h.request("POST", "/api/quotes", { headers: bearer(other), body: trip("2027-08-01T08:00:00", { totalTripDuration: "1441" }) });
    expect(quote.status).toBe(400);
    expect(quote.body.errors.map((e: { field: string }) => e.field)).toContain("totalTripDuration");
    const affiliate = { requesterId: other.netid, requesterResNo: "HL-DURATION", providerId: big.netid, action: "NEW" };
    const before = await h.count("bookings");
    const tooLong = await sendTrip(h, other, { reservationType: "REGULAR", ...trip("2027-08-01T08:00:00", { totalTripDuration: 43_200 }), passengers, affiliateReservation: affiliate });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors.map((e: { field: string }) => e.field)).toContain("totalTripDuration");
    expect(await h.count("bookings")).toBe(before);
    const day = await sendTrip(h, other, { reservationType: "REGULAR", ...trip("2027-08-01T08:00:00", { totalTripDuration: "1440" }), passengers, affiliateReservation: affiliate });
    expect(day.status).toBe(200);
    const longer = await sendTrip(h, other, { totalTripDuration: "1500", affiliateReservation: { ...affiliate, action: "UPDATE" } });
    expect(longer.status).toBe(400);
    expect(longer.body.errors.map((e: { field: string }) => e.field)).toContain("totalTripDuration");
  });
});
