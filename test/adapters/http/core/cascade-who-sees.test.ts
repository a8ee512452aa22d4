import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { integrate, lookup, party, providerUpdate, type Party } from "../../../support/trips";
import { startReceiver } from "../../../support/receiver";
import { SseClient } from "../../../support/sse";
import { bearer, iso, jfkSedan } from "../../../support/jfk";
import { watchOffers } from "../../../../domain/usecases/offer-watch";

/**
 * Who sees what of a booking the cascade offers to several providers, through HTTP on both databases
 * (docs/terms.md#who-sees-what): the fallback is the requester's alone; a provider sees only its own offer — in the
 * core read, the GNet read, its event stream, its delivery and the changeLogs — never an earlier provider, its price
 * or outcome; a provider that lost the booking still reads its own offer, hears `booking.withdrawn` on its stream
 * and webhook, and finds it among its lost offers; a lapsed provider's CANCEL says OFFER_LAPSED.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = (seconds: number) => (clock.t = Math.floor(Date.now() / 1000) - seconds);
let h: Harness;
let base = "";
let server: { stop(force?: boolean): unknown } | undefined;
let maker: Party, first: Party, next: Party, last: Party, stranger: Party;
const rx = startReceiver();
const streams: SseClient[] = [];
const MAX_FEE = "987.65";

const received = (path: string, id: string) => rx.received.filter((r) => r.path === path && r.json?.transactionId === id);
const hooksOf = (path: string, id: string) => rx.received.filter((r) => r.path === path && r.json?.data?.transactionId === id);
const read = (who: Party, id: string) => lookup(h, who, id);
const gnetRead = (who: Party, id: string) => h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: who.token } });
async function stream(who: Party): Promise<SseClient> {
  const client = await SseClient.open(`${base}/api/events`, { authorization: `Bearer ${who.jwt}` });
  streams.push(client);
  await client.until(() => client.comments.includes("connected"), 5000, "the connected comment");
  return client;
}
async function watch() {
  for (let i = 0; ; i++) {
    const pass = await watchOffers(h.services.offers, (err, id) => console.error("offer watch failed", id, err));
    if (pass.claimed > 0 || i >= 50) return pass;
    await Bun.sleep(20);
  }
}
async function until(check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await Bun.sleep(20);
  expect(check()).toBe(true);
}
/** Whether a JSON answer or body names `netid` anywhere. */
const names = (value: unknown, netid: string) => JSON.stringify(value).toLowerCase().includes(netid.toLowerCase());

let id = "";
let fees: Record<string, string> = {};
let firstStream: SseClient, nextStream: SseClient;

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  const app = h.app.listen({ hostname: "127.0.0.1", port: 0 });
  server = app.server ?? undefined;
  base = `http://127.0.0.1:${app.server!.port}`;
  [maker, first, next, last, stranger] = await Promise.all([
    party(h, "SEE-BOOKER", "CO"),
    party(h, "SEE-FIRST", "IO"),
    party(h, "SEE-NEXT", "IO"),
    party(h, "SEE-LAST", "IO"),
    party(h, "SEE-STRANGER", "IO"),
  ]);
  await jfkSedan(h, first.netid, "see-first-car", "50.00");
  await jfkSedan(h, next.netid, "see-next-car", "60.00");
  await jfkSedan(h, last.netid, "see-last-car", "70.00");
  for (const [who, path] of [[first, "/first"], [next, "/next"], [last, "/last"]] as const)
    expect((await integrate(h, who, { deliveryUrl: `${rx.url}${path}`, webhookUrl: `${rx.url}${path}-hooks`, webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(h, maker, { webhookUrl: `${rx.url}/hooks`, webhookFormat: "events" })).status).toBe(200);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
  h.services.worker.start();
  [firstStream, nextStream] = await Promise.all([stream(first), stream(next)]);

  rewind(900);
  const q = await h.request("POST", "/api/quotes", {
    headers: bearer(maker),
    body: {
      passengerCount: "2",
      locations: {
        pickup: { locationType: "airport", address: "JFK", time: iso(clock.now() + 8 * 3600) },
        dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
      },
    },
  });
  expect(q.status).toBe(200);
  const options = q.body.data.options as Array<{ provider: { netid: string }; quoteOptionId: string; fee: string }>;
  fees = Object.fromEntries(options.map((o) => [o.provider.netid, o.fee]));
  const booked = await h.request("POST", `/api/quotes/${q.body.data.quoteId}/book`, {
    headers: bearer(maker),
    body: {
      quoteOptionId: options.find((o) => o.provider.netid === first.netid)!.quoteOptionId,
      requesterResNo: "SEE-1",
      passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
      acceptWithinMinutes: 5,
      fallback: { maxFee: MAX_FEE },
    },
  });
  expect(booked.status).toBe(200);
  id = booked.body.transactionId;
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  server?.stop(true);
  await h.close();
  rx.stop();
});

describe("who sees what (docs/terms.md#who-sees-what)", () => {
  test("the fallback is the requester's alone: never in the provider's read, GNet read or delivery", async () => {
    const mine = await read(maker, id);
    expect(mine.body.data.fallback).toEqual({ maxFee: MAX_FEE });
    const theirs = await read(first, id);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.fallback).toBeUndefined();
    expect(names(theirs.body, MAX_FEE)).toBe(false);
    expect(names((await gnetRead(first, id)).body, MAX_FEE)).toBe(false);
    await until(() => received("/first", id).length === 1);
    expect(names(received("/first", id)[0].json, MAX_FEE)).toBe(false);
  });

  test("after a REJECT and a move the next provider sees a plain new booking: its own offer, no earlier provider, price or outcome", async () => {
    expect((await providerUpdate(h, first, id, { status: "REJECT" })).status).toBe(200);
    expect((await watch()).moved).toBe(1);
    const theirs = (await read(next, id)).body;
    expect(theirs.data.offers).toEqual([expect.objectContaining({ provider: next.netid, fee: fees[next.netid], status: "BOOKING_REQUEST" })]);
    expect(theirs.data.tripPacket.changeLogs[0].changeDesc).toStartWith(`trip offered to ${next.netid}`);
    for (const shown of [theirs, (await gnetRead(next, id)).body]) {
      expect(names(shown, first.netid)).toBe(false);
      expect(names(shown, fees[first.netid])).toBe(false);
      expect(names(shown, "PROVIDER_REJECTED")).toBe(false);
      expect(names(shown, MAX_FEE)).toBe(false);
    }
    await until(() => received("/next", id).length === 1);
    expect(names(received("/next", id)[0].json, first.netid)).toBe(false);
    await nextStream.until(() => nextStream.events.some((e) => e.json?.data?.transactionId === id), 5000, "the next provider's event");
    const heard = nextStream.events.filter((e) => e.json?.data?.transactionId === id);
    expect(heard.map((e) => e.event)).toEqual(["booking.created"]);
    expect(names(heard, first.netid)).toBe(false);
    // The requester sees the whole story.
    const mine = (await read(maker, id)).body.data;
    expect(mine.offers.map((o: { provider: string }) => o.provider)).toEqual([first.netid, next.netid]);
  });

  test("the provider that declined still reads its own offer (200: its status, reason and price, nothing after it), hears booking.withdrawn, lists it as lost", async () => {
    const own = await read(first, id);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ toConextId: first.netid, lastStatus: "REJECT", reason: "PROVIDER_REJECTED", tripPacket: { totalAmount: fees[first.netid] } });
    expect(own.body.data.offers).toEqual([expect.objectContaining({ provider: first.netid, status: "REJECT", reason: "PROVIDER_REJECTED" })]);
    expect(own.body.providerNext).toEqual([]);
    expect(names(own.body, next.netid)).toBe(false);
    const gnet = await gnetRead(first, id);
    expect(gnet.status).toBe(200);
    expect(names(gnet.body, next.netid)).toBe(false);
    await firstStream.until(() => firstStream.of("booking.withdrawn").length > 0, 5000, "booking.withdrawn");
    const withdrawn = firstStream.of("booking.withdrawn")[0].json;
    expect(withdrawn).toMatchObject({ reason: "PROVIDER_REJECTED", data: { transactionId: id, lastStatus: "REJECT" } });
    expect(names(withdrawn, next.netid)).toBe(false);
    await until(() => hooksOf("/first-hooks", id).some((w) => w.json.type === "booking.withdrawn"));
    expect(hooksOf("/first-hooks", id).find((w) => w.json.type === "booking.withdrawn")!.json.reason).toBe("PROVIDER_REJECTED");
    const lost = await h.request("GET", "/api/reservations/lost", { headers: bearer(first) });
    expect(lost.status).toBe(200);
    expect(lost.body.data.items).toEqual([
      expect.objectContaining({ transactionId: id, requesterId: maker.netid, requesterResNo: "SEE-1", status: "REJECT", reason: "PROVIDER_REJECTED", fee: fees[first.netid] }),
    ]);
    // It can no longer move the booking; a company never offered it still gets 404.
    expect((await providerUpdate(h, first, id, { status: "CONFIRMED" })).status).toBe(404);
    expect((await read(stranger, id)).status).toBe(404);
    expect((await h.request("GET", "/api/reservations/lost", { headers: bearer(next) })).body.data.items).toEqual([]);
  });

  test("a lapsed provider is sent CANCEL with reason OFFER_LAPSED, and reads its own offer (CANCEL, ACCEPT_TIMEOUT); the last one's history starts with its own offer", async () => {
    clock.advance(5 * 60 + 1);
    expect((await watch()).moved).toBe(1);
    await until(() => received("/next", id).length === 2);
    const cancel = received("/next", id)[1].json;
    expect(cancel).toMatchObject({ reason: "OFFER_LAPSED", affiliateReservation: { action: "CANCEL", providerId: next.netid } });
    expect(names(cancel, last.netid)).toBe(false);
    const own = (await read(next, id)).body;
    expect(own.data).toMatchObject({ lastStatus: "CANCEL", reason: "ACCEPT_TIMEOUT", toConextId: next.netid });
    expect(names(own, last.netid)).toBe(false);
    expect(names(own, first.netid)).toBe(false);
    await nextStream.until(() => nextStream.of("booking.withdrawn").length > 0, 5000, "booking.withdrawn");
    expect(nextStream.of("booking.withdrawn")[0].json.reason).toBe("ACCEPT_TIMEOUT");
    const current = (await read(last, id)).body;
    // Its history starts with the offer made to it (then, once delivered, its delivery's line).
    expect(current.data.tripPacket.changeLogs[0].changeDesc).toBe(`trip offered to ${last.netid}: status BOOKING_REQUEST (${fees[last.netid]} USD)`);
    for (const who of [first, next]) expect(names(current, who.netid)).toBe(false);
    // The requester's webhooks told the moves; no provider's webhook ever carried the fallback.
    await until(() => hooksOf("/hooks", id).filter((w) => w.json.type === "booking.reassigned").length === 2);
    for (const path of ["/first-hooks", "/next-hooks", "/last-hooks"]) expect(names(hooksOf(path, id), MAX_FEE)).toBe(false);
  });
});
