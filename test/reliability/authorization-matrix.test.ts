import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../support/harness";
import { addVehicle } from "../support/fleet";
import { parties, regularTrip, sendTrip, type Party } from "../support/trips";

// Every route that takes an object id, tried by every kind of caller (issue 7). What is not yours is a 404 whose
// body is byte-identical to that of an id that does not exist (up to the id itself, where the message echoes it); missing or dead credentials are 401; a party calling
// the other party's operation is 403 (docs/integration.md#the-lifecycle).
const PASSWORD = "correct horse battery staple";
const UNKNOWN_UUID = "6f1c2d3e-4b5a-4968-8776-5a4b3c2d1e0f";

let h: Harness;
let requester: Party;
let provider: Party;
let stranger: Party;
let removed: { jwt: string; token: string };
let released: string;
let transactionId: string;
let slug: string;
let deliveryId: number;

type Credential = { name: string; headers: Record<string, string> };
const core = (name: string, jwt: string): Credential => ({ name, headers: { authorization: `Bearer ${jwt}` } });
const platform = (name: string, token: string): Credential => ({ name, headers: { token } });
const nobody: Credential = { name: "no credential", headers: {} };

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider, stranger } = await parties(h, "-AZ"));
  // A second user of the requester's company, removed after logging in: its tokens must die with it.
  await h.rows("INSERT INTO users (uid, uid_lower, netid, email, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)", "BOOKWELL-AZ-OPS", "bookwell-az-ops", requester.netid, "ops@bookwell-az.example", await Bun.password.hash(PASSWORD), 0);
  removed = { jwt: await h.coreToken("BOOKWELL-AZ-OPS", PASSWORD), token: await h.platformToken("BOOKWELL-AZ-OPS", PASSWORD) };
  expect(await h.services.users.remove("BOOKWELL-AZ-OPS")).toBe(true);
  released = await h.platformToken(requester.netid, PASSWORD);
  expect((await h.request("GET", "/Platform.svc/releaseToken/V1", { headers: { token: released } })).status).toBe(200);

  const booked = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
  expect(booked.status).toBe(200);
  transactionId = booked.body.transactionId;
  slug = await addVehicle(h, { authorization: `Bearer ${provider.jwt}` }, { name: "Matrix Sedan" });
  await h.enqueue(
    { eventId: crypto.randomUUID(), channel: "webhook", eventType: "booking.changed", transactionId, targetNetid: requester.netid, url: "http://127.0.0.1:9/hook", body: "{}" },
    Math.floor(Date.now() / 1000),
  );
  deliveryId = (await h.services.outbox.list(requester.netid, "webhook", 1, 0)).items[0].id;
});
afterAll(() => h?.close());

interface Row {
  route: string;
  method: string;
  /** The path for an id. */
  path: (id: string) => string;
  id: () => string;
  unknownId: string;
  body?: unknown;
  expect: [Credential, number][];
}

async function call(row: Row, who: Credential, id: string) {
  return h.request(row.method, row.path(id), { headers: who.headers, body: row.body });
}

/** Runs one row: every caller's status; 404s must read exactly like the unknown id for that caller; 401s carry the envelope. */
async function check(row: Row): Promise<string[]> {
  const wrong: string[] = [];
  for (const [who, status] of row.expect) {
    const res = await call(row, who, row.id());
    if (res.status !== status) wrong.push(`${row.route} as ${who.name}: ${res.status} ${res.text.slice(0, 120)} (expected ${status})`);
    if (status === 404) {
      // A message may name the id the caller sent (the fleet's does); apart from that echo the bytes must match.
      const unknown = await call(row, who, row.unknownId);
      if (unknown.status !== 404 || unknown.text.replaceAll(row.unknownId, "<id>") !== res.text.replaceAll(row.id(), "<id>")) wrong.push(`${row.route} as ${who.name}: 404 differs from an unknown id: ${res.text} vs ${unknown.status} ${unknown.text}`);
    }
    if (status >= 400 && (res.body?.success !== false || typeof res.body?.code !== "string")) wrong.push(`${row.route} as ${who.name}: not the error envelope`);
    if (status === 401 && row.route.startsWith("/api") && res.headers.get("www-authenticate") !== "Bearer") wrong.push(`${row.route} as ${who.name}: 401 without WWW-Authenticate`);
  }
  return wrong;
}

describe("authorization matrix", () => {
  test("bookings: owner and counterparty see them; a third company gets the unknown-id 404; removed users, released tokens and no credential get 401", async () => {
    const dead = (core: boolean) => [
      [core ? { name: "removed user (JWT)", headers: { authorization: `Bearer ${removed.jwt}` } } : platform("removed user (platform token)", removed.token), 401],
      [core ? { name: "released platform token", headers: { authorization: released } } : platform("released platform token", released), 401],
      [nobody, 401],
    ] as [Credential, number][];
    const rows: Row[] = [
      {
        route: "/api/reservation/{transactionId}",
        method: "GET",
        path: (id) => `/api/reservation/${id}`,
        id: () => transactionId,
        unknownId: UNKNOWN_UUID,
        expect: [
          [core("requester (JWT)", requester.jwt), 200],
          [{ name: "requester (platform token)", headers: { authorization: requester.token } }, 200],
          [core("provider (JWT)", provider.jwt), 200],
          [core("third company", stranger.jwt), 404],
          [{ name: "third company (platform token)", headers: { authorization: `Bearer ${stranger.token}` } }, 404],
          ...dead(true),
          [platform("removed user (platform token)", removed.token), 401],
        ],
      },
      {
        route: "getReservationByTransactionId",
        method: "GET",
        path: (id) => `/Platform.svc/getReservationByTransactionId/${id}/V1`,
        id: () => transactionId,
        unknownId: UNKNOWN_UUID,
        expect: [[platform("requester", requester.token), 200], [platform("provider", provider.token), 200], [platform("third company", stranger.token), 404], ...dead(false)],
      },
      {
        route: "providerUpdateStatusByTransactionId",
        method: "POST",
        path: (id) => `/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`,
        id: () => transactionId,
        unknownId: UNKNOWN_UUID,
        body: { status: "CONFIRMED" },
        expect: [[platform("requester (not the provider)", requester.token), 403], [platform("third company", stranger.token), 404], ...dead(false), [platform("provider", provider.token), 200]],
      },
      {
        route: "cancelTripByTransactionId",
        method: "POST",
        path: (id) => `/Platform.svc/cancelTripByTransactionId/${id}/V1`,
        id: () => transactionId,
        unknownId: UNKNOWN_UUID,
        expect: [[platform("provider (not the requester)", provider.token), 403], [platform("third company", stranger.token), 404], ...dead(false), [platform("requester", requester.token), 200]],
      },
    ];
    const wrong: string[] = [];
    for (const row of rows) wrong.push(...(await check(row)));
    expect(wrong).toEqual([]);
  });

  test("sendTrip UPDATE and CANCEL naming someone else's booking read exactly like an unknown booking", async () => {
    const trip = regularTrip(requester.netid, provider.netid);
    const booked = await sendTrip(h, requester, trip);
    const id = booked.body.transactionId;
    const resNo: string = trip.affiliateReservation.requesterResNo;
    const wrong: string[] = [];
    for (const action of ["UPDATE", "CANCEL"]) {
      const body = (ref: Record<string, string>) => ({ ...ref, specialInstructions: "changed", affiliateReservation: { requesterId: stranger.netid, providerId: provider.netid, action, ...(ref.requesterResNo ? { requesterResNo: ref.requesterResNo } : {}) } });
      const theirs = await sendTrip(h, stranger, body({ transactionId: id }));
      const unknown = await sendTrip(h, stranger, body({ transactionId: UNKNOWN_UUID }));
      if (theirs.status !== 404 || theirs.text !== unknown.text) wrong.push(`${action} by transactionId: ${theirs.status} ${theirs.text} vs ${unknown.text}`);
      // A requesterResNo lives in the caller's own namespace: the requester's number means nothing to a stranger.
      const byResNo = await sendTrip(h, stranger, body({ requesterResNo: resNo }));
      if (byResNo.status !== 404) wrong.push(`${action} by requesterResNo: ${byResNo.status} ${byResNo.text}`);
    }
    expect(wrong).toEqual([]);
    // Still untouched.
    const seen = await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
    expect(seen.body.data.lastStatus).toBe("BOOKING_REQUEST");
    expect(seen.body.data.tripPacket.specialInstructions).not.toBe("changed");
  });

  test("fleet entries: only the owner reads, changes or removes them; anyone else gets the unknown-slug 404", async () => {
    const dead: [Credential, number][] = [
      [core("removed user", removed.jwt), 401],
      [{ name: "released platform token", headers: { authorization: `Bearer ${released}` } }, 401],
      [platform("platform token instead of a JWT", provider.token), 401],
      [nobody, 401],
    ];
    const others: [Credential, number][] = [
      [core("requester (another company)", requester.jwt), 404],
      [core("third company", stranger.jwt), 404],
    ];
    const base = { path: (id: string) => `/api/fleet/${id}`, id: () => slug, unknownId: "no-such-slug-anywhere" };
    const wrong = [
      ...(await check({ ...base, route: "GET /api/fleet/{slug}", method: "GET", expect: [[core("owner", provider.jwt), 200], ...others, ...dead] })),
      ...(await check({ ...base, route: "PATCH /api/fleet/{slug}", method: "PATCH", body: { name: "Hijacked" }, expect: [...others, ...dead, [core("owner", provider.jwt), 200]] })),
      ...(await check({ ...base, route: "DELETE /api/fleet/{slug}", method: "DELETE", expect: [...others, ...dead, [core("owner", provider.jwt), 200]] })),
    ];
    expect(wrong).toEqual([]);
  });

  test("webhook deliveries: only the owner replays them; anyone else gets the unknown-id 404", async () => {
    const wrong = await check({
      route: "POST /api/webhooks/deliveries/{id}/replay",
      method: "POST",
      path: (id) => `/api/webhooks/deliveries/${id}/replay`,
      id: () => String(deliveryId),
      unknownId: "987654321",
      expect: [
        [core("counterparty (provider)", provider.jwt), 404],
        [core("third company", stranger.jwt), 404],
        [core("removed user", removed.jwt), 401],
        [{ name: "released platform token", headers: { authorization: `Bearer ${released}` } }, 401],
        [nobody, 401],
        [core("owner", requester.jwt), 200],
      ],
    });
    expect(wrong).toEqual([]);
    // And the delivery list shows each company only its own.
    const listed = await h.request("GET", "/api/webhooks/deliveries", { headers: { authorization: `Bearer ${stranger.jwt}` } });
    expect(listed.body.data.total).toBe(0);
  });
});
