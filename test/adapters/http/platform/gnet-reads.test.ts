import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { lookup, nextResNo, parties, providerUpdate, sendTrip, type Party } from "../../../support/trips";

type Json = Record<string, any>;

/**
 * A reservation as a GNet requester writes one: GNet's members beyond the spec's table, lat/lon as numbers and as
 * strings, a stop, notes for the office and the chauffeur, a member no schema names — and members a requester has
 * no business setting (the provider's number, vehicle and chauffeur, and the names of the answer's envelope).
 */
function gnetReservation(requester: Party, provider: Party): Json {
  return {
    reservationType: "REGULAR",
    runType: "Point To Point",
    reservationDate: "-06:00",
    passengerCount: "2",
    luggageCount: "3",
    preferredVehicleType: "SUV",
    specialInstructions: "Two car seats",
    eventName: "Lakefront Summit",
    namesignInstructions: "SUMMIT - Okafor",
    sourceVendor: "LAKESHORE-WEB",
    origination: "mobile",
    totalTripDuration: 95,
    corporateCode: { code: "LK-CORP-9", approver: "travel desk" },
    locations: {
      pickup: {
        locationType: "address",
        address: "1 E Pearson St, Chicago, IL 60611",
        address1: "1 East Pearson Street",
        city: "Chicago",
        state: "IL",
        zipCode: "60611",
        country: "US",
        lat: 41.8973,
        lon: "-87.6273",
        time: "2027-03-14T09:30:00",
        specialInstructions: "Side entrance on Rush St",
        pointOnLocation: "Lobby",
      },
      stops: [{ locationType: "address", address: "600 E Grand Ave, Chicago, IL 60611", city: "Chicago", country: "US", lat: "41.8917", lon: -87.6086, stopNumber: 1 }],
      dropOff: { locationType: "airport", address: "MDW", landmark: "Chicago Midway", country: "US", flightInfo: { airlineCode: "WN", flightNumber: "2211" } },
    },
    passengers: [{ firstName: "Adaeze", lastName: "Okafor", email: "adaeze@example.com", phoneNumber: "+13125550142", phones: [{ number: "+13125550143", type: "office" }] }],
    account: { accountNumber: "LK-88", accountName: "Lakeshore Travel", callerName: "Desk", callerNumber: "+13125550100", callerEmail: "desk@example.com" },
    notes: [
      { message: "VIP, invoice the account", context: "AFFILIATE" },
      { message: "Wait inside the lobby", context: "DRIVER" },
    ],
    affiliateReservation: { requesterId: requester.netid, requesterResNo: nextResNo(), providerId: provider.netid, action: "NEW", notes: "Please confirm within the hour", costCenter: "CC-12" },
  };
}

/** Members a requester might send that a GNet read must never show as the provider's or as the envelope. */
const FORGED = {
  providerResNo: "FAKE-1",
  vehicle: { plateNo: "FORGED" },
  chauffeur: { firstName: "Not", lastName: "Assigned" },
  providerNote: "forged note",
  success: false,
  data: { forged: true },
};

/** Every leaf of a JSON value with its path ("locations.stops[0].lat"). */
function leaves(value: unknown, path = ""): Array<[string, unknown]> {
  if (value === null || typeof value !== "object") return [[path, value]];
  const entries = Array.isArray(value) ? value.map((v, i) => [`${path}[${i}]`, v] as const) : Object.entries(value).map(([k, v]) => [path ? `${path}.${k}` : k, v] as const);
  return entries.flatMap(([p, v]) => leaves(v, p));
}

/** The value at a leaf path of `leaves`. */
function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|(?=\[)/)
    .reduce<unknown>((v, key) => (v === undefined || v === null ? undefined : (v as Json)[key.startsWith("[") ? Number(key.slice(1, -1)) : key]), value);
}

let h: Harness;
let requester: Party, provider: Party, stranger: Party;

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider, stranger } = await parties(h, "-GR"));
});

afterAll(() => h.close());

const read = (who: Party, path: string) => h.request("GET", path, { headers: { token: who.token } });

describe("getReservationByTransactionId and getReservationByReservationId answer GNet's reservation at the top level", () => {
  test("every member sent is at the top level as sent (lat/lon as strings), with success and data beside it", async () => {
    const sent = gnetReservation(requester, provider);
    const res = await sendTrip(h, requester, sent);
    expect(res.status).toBe(200);
    const id = res.body.transactionId;

    const got = await read(requester, `/Platform.svc/getReservationByTransactionId/${id}/V1`);
    expect(got.status).toBe(200);
    const body = got.body;
    const fields = leaves(sent);
    expect(fields.length).toBeGreaterThan(50);
    for (const [path, value] of fields) {
      const want = /\.(lat|lon)$/.test(path) ? String(value) : value;
      expect({ path, got: at(body, path) }).toEqual({ path, got: want });
    }
    expect(body.transactionId).toBe(id);
    expect(body.status).toBe("BOOKING_REQUEST");
    expect(body.resStatus).toBe("Pending");
    expect(body.totalAmount).toBeNull();
    expect(body.fees).toEqual([]);
    expect(body.affiliateReservation).toEqual({
      costCenter: "CC-12",
      updateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      notes: "Please confirm within the hour",
      requesterId: requester.netid,
      requesterResNo: sent.affiliateReservation.requesterResNo,
      providerId: provider.netid,
      providerResNo: "",
      providerResCode: "",
      action: "NEW",
      submissionTarget: "TRIPSWITCH",
      status: "BOOKING_REQUEST",
    });
    expect(body.vehicle).toBeNull();
    expect(body.chauffeur).toBeNull();
    expect(body.location).toBeNull();
    expect(body.providerNote).toBe("");
    expect(body.changeLogs.length).toBeGreaterThan(0);
    expect(body.transactionErrors).toEqual([]);
    // Today's answer is still there, unchanged: success and the booking view in data.
    expect(body.success).toBe(true);
    // (The core lookup alone adds the pickup's zone.)
    const { pickupZone: _zone, ...view } = (await lookup(h, requester, id)).body.data;
    expect(body.data).toEqual(view);
  });

  test("the provider's number, vehicle, chauffeur and note show once the provider sets them, in both reads and for both parties", async () => {
    const sent = gnetReservation(requester, provider);
    const id = (await sendTrip(h, requester, sent)).body.transactionId;
    const update = {
      status: "ASSIGNED",
      resNo: "WCC-7781",
      providerNote: "Escalade reserved",
      totalAmount: "212.50",
      vehicle: { vehicleId: "V-3", vehType: "SUV", make: "Cadillac", model: "Escalade", licensePlate: "IL-4471", color: "Black" },
      chauffeur: { chauffeurId: "CH-9", firstName: "Tomasz", lastName: "Nowak", phoneNumber: "+13125550199" },
    };
    expect((await providerUpdate(h, provider, id, update)).status).toBe(200);

    const paths = [
      [requester, `/Platform.svc/getReservationByTransactionId/${id}/V1`],
      [provider, `/platform.svc/GETRESERVATIONBYTRANSACTIONID/${id}`],
      [requester, `/Platform.svc/getReservationByReservationId/${requester.netid}/${sent.affiliateReservation.requesterResNo}/V1`],
      [provider, `/Platform.svc/getReservationByReservationId/${provider.netid.toLowerCase()}/WCC-7781/V1`],
    ] as const;
    for (const [who, path] of paths) {
      const got = await read(who, path);
      expect({ path, status: got.status }).toEqual({ path, status: 200 });
      const body = got.body;
      expect(body.transactionId).toBe(id);
      expect(body.status).toBe("ASSIGNED");
      expect(body.totalAmount).toBe("212.50");
      expect(body.affiliateReservation).toMatchObject({ providerResNo: "WCC-7781", providerResCode: "WCC-7781", status: "ASSIGNED", submissionTarget: "TRIPSWITCH", action: "NEW" });
      // GNet's vehicle names beside the ones the provider sent.
      expect(body.vehicle).toEqual({ ...update.vehicle, vehicleType: "SUV", plateNo: "IL-4471", vColor: "Black" });
      expect(body.chauffeur).toEqual(update.chauffeur);
      expect(body.providerNote).toBe("Escalade reserved");
      expect(body.success).toBe(true);
      expect(body.data.targetResNo).toBe("WCC-7781");
      expect(body.data.lastStatus).toBe("ASSIGNED");
    }
  });

  test("members a requester sent under the provider's or the envelope's names never appear at the top level", async () => {
    const sent: Json = { ...gnetReservation(requester, provider), ...FORGED };
    // (affiliateReservation.providerResNo from a requester is the provider-ownership work's, not this read's.)
    sent.affiliateReservation = { ...sent.affiliateReservation, providerResCode: "FAKE-3", submissionTarget: "ELSEWHERE", status: "CONFIRMED", updateTime: "1999-01-01T00:00:00Z" };
    const res = await sendTrip(h, requester, sent);
    expect(res.status).toBe(200);
    const body = (await read(provider, `/Platform.svc/getReservationByTransactionId/${res.body.transactionId}/V1`)).body;
    expect(body.success).toBe(true);
    expect(body.data.transactionId).toBe(res.body.transactionId);
    expect(body.data.forged).toBeUndefined();
    expect(body.vehicle).toBeNull();
    expect(body.chauffeur).toBeNull();
    expect(body.providerNote).toBe("");
    expect(body.providerResNo).toBeUndefined();
    expect(body.status).toBe("BOOKING_REQUEST");
    expect(body.affiliateReservation).toMatchObject({ providerResCode: body.affiliateReservation.providerResNo, submissionTarget: "TRIPSWITCH", status: "BOOKING_REQUEST" });
    expect(body.affiliateReservation.updateTime).not.toBe("1999-01-01T00:00:00Z");
    // What the requester sent under no schema's name is still shown.
    expect(body.corporateCode).toEqual({ code: "LK-CORP-9", approver: "travel desk" });
  });

  test("anyone but the two parties and an unknown id get the same 404; a non-UUID id is 400; no token is 401", async () => {
    const sent = gnetReservation(requester, provider);
    const id = (await sendTrip(h, requester, sent)).body.transactionId;
    const hidden = await read(stranger, `/Platform.svc/getReservationByTransactionId/${id}/V1`);
    const unknown = await read(requester, `/Platform.svc/getReservationByTransactionId/${crypto.randomUUID()}/V1`);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(hidden.body).toEqual({ ...unknown.body });
    expect(hidden.body.success).toBe(false);
    expect(hidden.body.transactionId).toBeUndefined();
    const byResNo = await read(stranger, `/Platform.svc/getReservationByReservationId/${requester.netid}/${sent.affiliateReservation.requesterResNo}/V1`);
    expect(byResNo.status).toBe(404);
    const bad = await read(requester, "/Platform.svc/getReservationByTransactionId/not-a-uuid/V1");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: expect.any(String) });
    expect((await h.request("GET", `/Platform.svc/getReservationByTransactionId/${id}/V1`)).status).toBe(401);
  });

  test("the OpenAPI document shows GNet's reservation with its example for both reads", async () => {
    const doc = (await h.request("GET", "/docs/json")).body;
    for (const path of ["/Platform.svc/getReservationByTransactionId/{transactionId}/V1", "/Platform.svc/getReservationByReservationId/{netid}/{resNo}/V1"]) {
      const schema = doc.paths[path].get.responses["200"].content["application/json"].schema;
      expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["success", "data", "transactionId", "status", "totalAmount", "affiliateReservation", "locations", "passengers", "fees"]));
      expect(Object.keys(schema.properties.affiliateReservation.properties)).toEqual(
        expect.arrayContaining(["requesterId", "requesterResNo", "providerId", "providerResNo", "action", "submissionTarget", "status", "notes"]),
      );
      const [example] = schema.examples;
      expect(example.affiliateReservation.providerResNo).toBeString();
      expect(example.data.transactionId).toBe(example.transactionId);
    }
  });
});

describe("GNet's help URL", () => {
  test("/Platform.svc/help in any letter case redirects to /docs", async () => {
    for (const path of ["/Platform.svc/help", "/platform.svc/HELP", "/PLATFORM.SVC/Help"]) {
      const res = await h.request("GET", path);
      expect({ path, status: res.status, location: res.headers.get("location") }).toEqual({ path, status: 302, location: "/docs" });
    }
    expect((await h.request("GET", "/docs")).status).toBe(200);
  });
});
