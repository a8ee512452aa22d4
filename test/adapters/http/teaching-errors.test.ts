import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { parties, regularTrip, sendTrip, type Party } from "../../support/trips";

// Errors that teach: what is missing says "is required", a field at fault is named in errors[], a body that is not
// JSON is 415, and a refused local URL says how to allow one for development.
let h: Harness;
let requester: Party;
let provider: Party;

beforeAll(async () => {
  h = createHarness();
  ({ requester, provider } = await parties(h));
});

describe("a missing field", () => {
  test.each([
    ["/api/token", { pw: "x" }, ["uid"]],
    ["/Platform.svc/getToken2", {}, ["uid", "pw"]],
  ] as const)("%s without %j reads \"is required\"", async (path, body, fields) => {
    const res = await h.request("POST", path, { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors).toEqual(fields.map((field) => ({ field, message: "is required" })));
    expect(res.body.message).toContain(`${fields[0]}`);
    expect(res.body.message).not.toContain("must be string");
  });

  test("a field of the wrong type still says which type it must be", async () => {
    const res = await h.request("POST", "/api/token", { body: { uid: 12, pw: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "uid", message: "must be string" }]);
  });
});

describe("a field at fault is named in errors[]", () => {
  test("ALREADY_REGISTERED names each field that is taken", async () => {
    const first = await h.registerCompany({ netid: "TAKEN-CO" });
    const res = await h.request("POST", "/api/company/register", {
      body: { name: "Another", netid: "TAKEN-CO", mainEmail: first.email, password: "a long unguessable passphrase", confirmPassword: "a long unguessable passphrase", mainPhone: "+1 212 555 0142", coType: "CO" },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("ALREADY_REGISTERED");
    expect(res.body.field).toBe("netid");
    expect(res.body.errors).toEqual([
      { field: "netid", message: "is already registered" },
      { field: "mainEmail", message: "is already registered" },
    ]);
  });

  test("DUPLICATE_RESERVATION names affiliateReservation.requesterResNo", async () => {
    const trip = regularTrip(requester.netid, provider.netid);
    expect((await sendTrip(h, requester, trip)).status).toBe(200);
    const res = await sendTrip(h, requester, { ...trip, specialInstructions: "something else" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("DUPLICATE_RESERVATION");
    expect(res.body.errors).toEqual([{ field: "affiliateReservation.requesterResNo", message: "is already used by a booking with different content" }]);
  });

  test("NOT_YOUR_NETID names affiliateReservation.requesterId", async () => {
    const res = await sendTrip(h, requester, regularTrip(provider.netid, provider.netid));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("NOT_YOUR_NETID");
    expect(res.body.errors).toEqual([{ field: "affiliateReservation.requesterId", message: "must be your own netid" }]);
  });
});

describe("the body's content type", () => {
  test("a JSON body sent as text/plain is 415, on both surfaces", async () => {
    const login = JSON.stringify({ uid: requester.netid, pw: "a long unguessable passphrase" });
    for (const path of ["/api/token", "/Platform.svc/getToken2"]) {
      const res = await h.request("POST", path, { raw: login, headers: { "content-type": "text/plain" } });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
    }
    const trip = await h.request("POST", "/Platform.svc/sendTrip/V1", { raw: JSON.stringify(regularTrip(requester.netid, provider.netid)), headers: { token: requester.token, "content-type": "text/plain; charset=utf-8" } });
    expect(trip.status).toBe(415);
  });

  test("application/json with a charset (what GNet clients send) and +json types are still taken", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8", "application/vnd.api+json"]) {
      const res = await h.request("POST", "/Platform.svc/sendTrip/V1", { raw: JSON.stringify(regularTrip(requester.netid, provider.netid)), headers: { token: requester.token, "content-type": type } });
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
    }
  });
});

describe("a refused local delivery or webhook URL", () => {
  test("names OUTBOUND_ALLOW_PRIVATE outside production", async () => {
    const guarded = createHarness({ outboundAllowPrivate: false });
    const { requester: r } = await parties(guarded, "-G");
    for (const [field, url] of [["webhookUrl", "http://127.0.0.1:8787/hooks"], ["deliveryUrl", "http://localhost:8080/farm-in"], ["webhookUrl", "http://192.168.1.20/hooks"]]) {
      const res = await guarded.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${r.jwt}` }, body: { [field]: url } });
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].field).toBe(field);
      expect(res.body.errors[0].message).toMatch(/^must not (point|resolve) to a (loopback|private) address.*; for development on one machine, start the service with OUTBOUND_ALLOW_PRIVATE=1$/);
    }
    await guarded.close();
  });

  test("does not suggest it in production", async () => {
    const prod = createHarness({ outboundAllowPrivate: false, production: true });
    const { requester: r } = await parties(prod, "-P");
    const res = await prod.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${r.jwt}` }, body: { webhookUrl: "https://127.0.0.1/hooks" } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe("must not point to a loopback address");
    await prod.close();
  });
});
