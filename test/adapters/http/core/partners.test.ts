import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { parties, type Party } from "../../../support/trips";

let h: Harness;
let requester: Party;
let provider: Party;
let stranger: Party;

beforeEach(async () => {
  h = createHarness();
  ({ requester, provider, stranger } = await parties(h));
});
afterEach(() => h.close());

const bearer = (p: Party) => ({ authorization: `Bearer ${p.jwt}` });
const ask = (from: Party, netid: string) => h.request("POST", "/api/partners", { headers: bearer(from), body: { netid } });
const accept = (by: Party, netid: string) => h.request("POST", `/api/partners/${netid}/accept`, { headers: bearer(by) });
const end = (by: Party, netid: string) => h.request("DELETE", `/api/partners/${netid}`, { headers: bearer(by) });
const list = (who: Party, format = "short", headers: Record<string, string> = bearer(who)) => h.request("GET", `/api/partner/${who.netid}?format=${format}`, { headers });
const setMap = (by: Party, netid: string, body: unknown) => h.request("PUT", `/api/partners/${netid}/vehicle-types`, { headers: bearer(by), body });

describe("partnership lifecycle", () => {
  test("a request is pending (outgoing for the asker, incoming for the other) until accepted; then both see it active", async () => {
    const asked = await ask(requester, provider.netid.toLowerCase());
    expect(asked.status).toBe(200);
    expect(asked.body.data).toEqual({ netid: provider.netid, name: expect.any(String), status: "pending", direction: "outgoing" });
    expect((await list(requester)).body).toEqual([{ netid: provider.netid, name: asked.body.data.name, status: "pending", direction: "outgoing" }]);
    expect((await list(provider)).body).toEqual([{ netid: requester.netid, name: expect.any(String), status: "pending", direction: "incoming" }]);

    const accepted = await accept(provider, requester.netid);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.status).toBe("active");
    expect((await list(requester)).body[0].status).toBe("active");
    expect((await list(provider)).body[0].status).toBe("active");
    expect((await list(stranger)).body).toEqual([]);
  });

  test("either side ends it; afterwards neither lists it and ending again is 404", async () => {
    await ask(requester, provider.netid);
    await accept(provider, requester.netid);
    const ended = await end(provider, requester.netid);
    expect(ended.status).toBe(200);
    expect(ended.body.data).toEqual({ netid: requester.netid, status: "ended" });
    expect((await list(requester)).body).toEqual([]);
    expect((await list(provider)).body).toEqual([]);
    const again = await end(requester, provider.netid);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("PARTNERSHIP_NOT_FOUND");
  });

  test("asking a company that already asked you makes the partnership active at once", async () => {
    await ask(requester, provider.netid);
    const both = await ask(provider, requester.netid);
    expect(both.status).toBe(200);
    expect(both.body.data.status).toBe("active");
  });

  test("duplicates and accepting nothing are 409; asking an unknown company 404; your own netid or a malformed one 400", async () => {
    expect((await accept(provider, requester.netid)).body.code).toBe("NO_PARTNERSHIP_REQUEST");
    await ask(requester, provider.netid);
    const dup = await ask(requester, provider.netid);
    expect([dup.status, dup.body.code]).toEqual([409, "PARTNERSHIP_ALREADY_REQUESTED"]);
    const own = await accept(requester, provider.netid);
    expect([own.status, own.body.code]).toEqual([409, "NO_PARTNERSHIP_REQUEST"]);
    await accept(provider, requester.netid);
    expect((await ask(provider, requester.netid)).body.code).toBe("ALREADY_PARTNERS");
    expect((await accept(provider, requester.netid)).status).toBe(409);

    const unknown = await ask(requester, "NO-SUCH-CO");
    expect([unknown.status, unknown.body.code]).toEqual([404, "COMPANY_NOT_FOUND"]);
    expect((await accept(requester, "NO-SUCH-CO")).status).toBe(409);
    expect((await end(requester, "NO-SUCH-CO")).status).toBe(404);
    const self = await ask(requester, requester.netid);
    expect([self.status, self.body.errors[0].field]).toEqual([400, "netid"]);
    const bad = await ask(requester, "x");
    expect([bad.status, bad.body.errors[0].field]).toEqual([400, "netid"]);
    const missing = await h.request("POST", "/api/partners", { headers: bearer(requester), body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe("netid");
  });

  test("every partnership route needs a credential", async () => {
    expect((await h.request("POST", "/api/partners", { body: { netid: provider.netid } })).status).toBe(401);
    expect((await h.request("POST", `/api/partners/${provider.netid}/accept`)).status).toBe(401);
    expect((await h.request("DELETE", `/api/partners/${provider.netid}`)).status).toBe(401);
    expect((await h.request("PUT", `/api/partners/${provider.netid}/vehicle-types`, { body: {} })).status).toBe(401);
    expect((await h.request("GET", `/api/partner/${provider.netid}`)).status).toBe(401);
  });
});

describe("GET /api/partner/{netid}", () => {
  test("accepts the platform token header too; another company's list is 403", async () => {
    await ask(requester, provider.netid);
    const viaToken = await list(requester, "short", { token: requester.token });
    expect(viaToken.status).toBe(200);
    expect(viaToken.body).toHaveLength(1);
    const foreign = await h.request("GET", `/api/partner/${provider.netid}`, { headers: bearer(requester) });
    expect([foreign.status, foreign.body.code]).toEqual([403, "NOT_YOUR_NETID"]);
    expect((await list(requester, "long")).body.errors[0].field).toBe("format");
  });

  test("full adds company facts, contact and both maps; a company you merely asked keeps its contact to itself", async () => {
    await ask(requester, provider.netid);
    const pending = (await list(requester, "full")).body[0];
    expect(pending).toMatchObject({ netid: provider.netid, status: "pending", direction: "outgoing", coType: "IO", plan: "FREE", mainEmail: null, mainPhone: null });
    // The one who asked offered its contact with the request.
    expect((await list(provider, "full")).body[0]).toMatchObject({ netid: requester.netid, status: "pending", direction: "incoming", coType: "CO", mainEmail: expect.stringContaining("@"), mainPhone: expect.stringMatching(/^\+\d+$/) });

    await accept(provider, requester.netid);
    expect((await setMap(provider, requester.netid, { suv_lux: "suv" })).status).toBe(200);
    const full = (await list(requester, "FULL")).body[0];
    expect(full).toEqual({
      netid: provider.netid,
      name: expect.any(String),
      status: "active",
      coType: "IO",
      plan: "FREE",
      mainEmail: expect.stringContaining("@"),
      mainPhone: expect.stringMatching(/^\+\d+$/),
      vehicleTypes: {},
      partnerVehicleTypes: { SUV_LUX: "SUV" },
    });
    expect((await list(provider, "full")).body[0].vehicleTypes).toEqual({ SUV_LUX: "SUV" });
  });
});

describe("PUT /api/partners/{netid}/vehicle-types", () => {
  beforeEach(async () => {
    await ask(requester, provider.netid);
    await accept(provider, requester.netid);
  });

  test("replaces the whole map, upper-cased; {} clears it", async () => {
    const first = await setMap(provider, requester.netid, { " suv_lux ": "Suv", EXEC: "SEDAN" });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ netid: requester.netid, vehicleTypes: { SUV_LUX: "SUV", EXEC: "SEDAN" } });
    await setMap(provider, requester.netid, { VAN12: "SPRINTER" });
    expect((await list(provider, "full")).body[0].vehicleTypes).toEqual({ VAN12: "SPRINTER" });
    await setMap(provider, requester.netid, {});
    expect((await list(provider, "full")).body[0].vehicleTypes).toEqual({});
  });

  test("bad codes, repeated keys and too many entries are 400 naming the entry; nothing changes", async () => {
    await setMap(provider, requester.netid, { SUV_LUX: "SUV" });
    const bad = await setMap(provider, requester.netid, { OK: "SEDAN", "NO SPACES": "SUV", LONG: "X".repeat(51), suv: "SUV", SUV: "VAN" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(["NO SPACES", "LONG", "SUV"]);
    const many = await setMap(provider, requester.netid, Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`T${i}`, "SEDAN"])));
    expect([many.status, many.body.errors[0].field]).toEqual([400, "body"]);
    const list_ = await setMap(provider, requester.netid, ["SUV"]);
    expect([list_.status, list_.body.errors[0].field]).toEqual([400, "body"]);
    expect((await list(provider, "full")).body[0].vehicleTypes).toEqual({ SUV_LUX: "SUV" });
    expect((await setMap(provider, requester.netid, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`T${i}`, "SEDAN"])))).status).toBe(200);
  });

  test("without a partnership it is 404; ending the partnership forgets both maps", async () => {
    const none = await setMap(provider, stranger.netid, { SUV_LUX: "SUV" });
    expect([none.status, none.body.code]).toEqual([404, "PARTNERSHIP_NOT_FOUND"]);
    expect((await setMap(provider, "NO-SUCH-CO", {})).status).toBe(404);
    await setMap(provider, requester.netid, { SUV_LUX: "SUV" });
    await setMap(requester, provider.netid, { SEDAN: "CAR" });
    await end(requester, provider.netid);
    await ask(requester, provider.netid);
    await accept(provider, requester.netid);
    expect((await list(provider, "full")).body[0]).toMatchObject({ vehicleTypes: {}, partnerVehicleTypes: {} });
  });
});

describe("routes that change nothing for a stranger do not tell which netids exist", () => {
  // The stranger exists and has no partnership with the requester; NO-SUCH-CO does not exist. Each route answers
  // both alike, whatever the letter case of the netid, so none of them enumerates companies.
  const same = (a: { status: number; body: unknown }, b: { status: number; body: unknown }) => expect([a.status, a.body]).toEqual([b.status, b.body]);
  const cases = (known: string) => [known, known.toLowerCase(), "NO-SUCH-CO", "no-such-co"];

  test("DELETE /api/partners/{netid}: 404 PARTNERSHIP_NOT_FOUND in the spelling given", async () => {
    for (const netid of cases(stranger.netid)) {
      const res = await end(requester, netid);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, code: "PARTNERSHIP_NOT_FOUND", message: `You have no partnership with ${netid}` });
    }
  });

  test("PUT /api/partners/{netid}/vehicle-types: the same 404 for a valid map, the same 400 for a bad one", async () => {
    for (const netid of cases(stranger.netid)) {
      const res = await setMap(provider, netid, { SUV_LUX: "SUV" });
      expect(res.body).toEqual({ success: false, code: "PARTNERSHIP_NOT_FOUND", message: `You have no partnership with ${netid}` });
    }
    same(await setMap(provider, stranger.netid, { "bad key!": "SUV" }), await setMap(provider, "NO-SUCH-CO", { "bad key!": "SUV" }));
    expect((await setMap(provider, "NO-SUCH-CO", { "bad key!": "SUV" })).status).toBe(400);
  });

  test("POST /api/partners/{netid}/accept: 409 NO_PARTNERSHIP_REQUEST in the spelling given", async () => {
    for (const netid of cases(stranger.netid)) {
      const res = await accept(requester, netid);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, code: "NO_PARTNERSHIP_REQUEST", message: `${netid} has not asked to partner with you` });
    }
  });
});

test("the OpenAPI document describes every partnership route and the account check, with examples and error answers", async () => {
  const spec = (await h.request("GET", "/docs/json")).body;
  const ops = [
    ["post", "/api/partners"],
    ["post", "/api/partners/{netid}/accept"],
    ["delete", "/api/partners/{netid}"],
    ["put", "/api/partners/{netid}/vehicle-types"],
    ["get", "/api/partner/{netid}"],
    ["get", "/api/user/check"],
  ] as const;
  for (const [method, path] of ops) {
    const op = spec.paths[path]?.[method];
    expect(op?.summary).toBeString();
    expect(op.responses["200"]).toBeDefined();
    expect(op.responses["400"]).toBeDefined();
    expect(JSON.stringify(op)).toContain('"examples"');
  }
  expect(spec.paths["/api/partner/{netid}"].get.responses["403"]).toBeDefined();
  expect(spec.paths["/api/user/check"].get.responses["429"]).toBeDefined();
  expect(spec.paths["/api/user/check"].get.security).toBeUndefined();
});
