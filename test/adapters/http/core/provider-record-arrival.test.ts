import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * The record's on time from the arrival by positions (docs/terms.md#provider-record): where the chauffeur's positions
 * tell when it reached the pickup (arrivedAt, docs/flights.md#arrival), that arrival is measured against the pickup, not
 * the ON_LOCATION the provider sent; without positions, ON_LOCATION at or before the pickup still counts.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party;
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
/** A street pickup: a position within 150 m of it is the chauffeur's arrival. */
const STREET = { lat: 40.7484, lon: -73.9857 };
const ADDRESS = { locationType: "address", address: "20 W 34th St, New York, NY 10001", lat: String(STREET.lat), lon: String(STREET.lon) };

/** A booking picking up in 3 h, accepted and assigned: its transactionId and pickup (Unix seconds). */
async function assigned(): Promise<{ id: string; pickup: number }> {
  const pickup = clock.now() + 3 * 3600;
  const sent = await sendTrip(h, requester, {
    reservationType: "REGULAR",
    passengerCount: "2",
    locations: { pickup: { ...ADDRESS, time: iso(pickup) } },
    passengers: [{ firstName: "Ada", lastName: "King" }],
    affiliateReservation: { requesterId: requester.netid, requesterResNo: nextResNo(), providerId: provider.netid, action: "NEW" },
  });
  expect(sent.status).toBe(200);
  const id = sent.body.transactionId as string;
  for (const status of ["CONFIRMED", "ASSIGNED"]) await setStatus(id, status);
  return { id, pickup };
}

async function setStatus(id: string, status: string) {
  const res = await providerUpdate(h, provider, id, { status });
  expect(res.status).toBe(200);
}

/** Moves the clock to `unix` (forward only). */
function moveTo(unix: number) {
  clock.advance(unix - clock.now());
}

/** The chauffeur's position 20 m from the pickup, taken now: the booking's arrival. */
async function arrive(id: string): Promise<string> {
  const taken = iso(clock.now());
  const res = await h.request("POST", "/api/GGPS.svc/saveGPScache", {
    body: { transactionId: id, latitude: STREET.lat + 20 / 111_195, longitude: STREET.lon, locationDateTime: taken },
    headers: { token: provider.token },
  });
  expect(res.status).toBe(200);
  const read = await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
  expect(read.body.data.arrivedAt).toBe(taken);
  return taken;
}

beforeAll(async () => {
  h = createHarness({ clock });
  [requester, provider] = await Promise.all([party(h, "ARRREC-BOOK", "CO"), party(h, "ARRREC-OPS", "IO")]);
  // 6 trips without positions: ON_LOCATION sent before the pickup, on time.
  for (let i = 0; i < 6; i++) await setStatus((await assigned()).id, "ON_LOCATION");
  // 2 trips whose ON_LOCATION came early but whose chauffeur reached the pickup an hour after it: late.
  for (let i = 0; i < 2; i++) {
    const { id, pickup } = await assigned();
    await setStatus(id, "EN_ROUTE");
    await setStatus(id, "ON_LOCATION");
    moveTo(pickup + 3600);
    await arrive(id);
  }
  // 1 trip whose chauffeur was at the pickup 10 min before it, though ON_LOCATION came 20 min after it: on time.
  {
    const { id, pickup } = await assigned();
    moveTo(pickup - 600);
    await arrive(id);
    moveTo(pickup + 1200);
    await setStatus(id, "ON_LOCATION");
  }
  // 1 trip with both on time.
  {
    const { id, pickup } = await assigned();
    moveTo(pickup - 900);
    await arrive(id);
    await setStatus(id, "ON_LOCATION");
  }
}, 120_000);

afterAll(async () => {
  await h.close();
});

describe("the provider record's on time from the arrival by positions", () => {
  test("an arrival after the pickup is late though ON_LOCATION came early; one before it on time though ON_LOCATION came late", async () => {
    const headers = { authorization: `Bearer ${requester.jwt}` };
    const res = await h.request("GET", `/api/providers/${provider.netid}/record`, { headers });
    expect(res.status).toBe(200);
    // 10 accepted trips: 6 by ON_LOCATION (on time), 2 late by arrival, 2 on time by arrival — 8 of 10.
    expect(res.body.data).toMatchObject({ offers: 10, acceptedPct: 100, onTimePct: 80 });
  });
});
