import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../support/harness";
import { integrate, parties, regularTrip, sendTrip } from "../../support/trips";

let h: Harness;
afterEach(() => h?.close());

function expectRateHeaders(headers: Headers, limit: number, remaining: number) {
  expect(headers.get("ratelimit-limit")).toBe(String(limit));
  expect(headers.get("ratelimit-remaining")).toBe(String(remaining));
  expect(Number(headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(0);
}

describe("per-company rate limits", () => {
  test("fleet search: the budget is per company; beyond it 429 with Retry-After and RateLimit headers; it refills with time", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 3, sendTripPerMinute: 0 } });
    const { requester, stranger } = await parties(h);
    const search = (jwt: string) => h.request("GET", "/api/search/fleet?airports=JFK", { headers: { authorization: `Bearer ${jwt}` } });
    for (let i = 0; i < 3; i++) {
      const ok = await search(requester.jwt);
      expect(ok.status).toBe(200);
      expectRateHeaders(ok.headers, 3, 2 - i);
    }
    const refused = await search(requester.jwt);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(typeof refused.body.message).toBe("string");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(20);
    expectRateHeaders(refused.headers, 3, 0);
    // Another company's budget is untouched.
    expect((await search(stranger.jwt)).status).toBe(200);
    // One request per 20 s refills.
    clock.advance(20);
    expect((await search(requester.jwt)).status).toBe(200);
    expect((await search(requester.jwt)).status).toBe(429);
  });

  test("sendTrip: 429 past the budget, nothing stored for the refused call, and a retry after Retry-After succeeds", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 2 } });
    const { requester, provider } = await parties(h);
    expect((await sendTrip(h, requester, regularTrip(requester.netid, provider.netid))).status).toBe(200);
    const second = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(second.status).toBe(200);
    expectRateHeaders(second.headers, 2, 0);
    const trip = regularTrip(requester.netid, provider.netid);
    const refused = await sendTrip(h, requester, trip);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expectRateHeaders(refused.headers, 2, 0);
    const listed = await h.request("GET", `/api/reservations?requesterResNo=${trip.affiliateReservation.requesterResNo}`, { headers: { authorization: `Bearer ${requester.jwt}` } });
    expect(listed.body.data.total).toBe(0);
    clock.advance(wait);
    expect((await sendTrip(h, requester, trip)).status).toBe(200);
  });

  test("a limit of 0 disables it", async () => {
    h = createHarness({ rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0 } });
    const { requester } = await parties(h);
    for (let i = 0; i < 30; i++) {
      const res = await h.request("GET", "/api/search/fleet?airports=JFK", { headers: { authorization: `Bearer ${requester.jwt}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
  });

  test("registration is throttled per client address: past the hourly budget 429 with Retry-After, and nothing is saved", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, registrationsPerHour: 3 } });
    for (let i = 0; i < 3; i++) await h.registerCompany();
    const password = "correct horse battery staple";
    const body = { name: "Burst Cars", netid: "BURST-CARS", mainEmail: "burst@example.com", password, confirmPassword: password, mainPhone: "+12125550177", coType: "IO" };
    const refused = await h.request("POST", "/api/company/register", { body });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await h.request("POST", "/api/token", { body: { uid: "BURST-CARS", pw: password } })).status).toBe(401);
    // One registration per 20 minutes refills.
    clock.advance(1200);
    expect((await h.request("POST", "/api/company/register", { body })).status).toBe(200);
  });

  test("every other write route shares a per-company budget; the refused write does nothing", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 3 } });
    const { provider, stranger } = await parties(h);
    const auth = { authorization: `Bearer ${provider.jwt}` };
    const put = (luggage: string, headers = auth) => h.request("PUT", "/api/company/integration", { headers, body: { luggage } });
    expect((await put("native")).status).toBe(200);
    expect((await h.request("POST", "/api/fleet", { headers: auth, body: { type: "SEDAN", name: "Budget Sedan", maxPassengers: 3, minimum_rate: 50, hourly_rate: 40 } })).status).toBe(200);
    expect((await h.request("POST", "/api/company/integration/webhook-secret", { headers: auth })).status).toBe(200);
    const refused = await put("notes");
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect((await h.request("GET", "/api/company/integration", { headers: auth })).body.data.luggage).toBe("native");
    // Another company's writes and every read are untouched; a GET that changes state (retryTransaction) is a write.
    expect((await put("notes", { authorization: `Bearer ${stranger.jwt}` })).status).toBe(200);
    expect((await h.request("GET", "/api/fleet", { headers: auth })).status).toBe(200);
    // The company's platform token spends the same budget as its JWT.
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: provider.token } })).status).toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: stranger.token } })).status).not.toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: stranger.token } })).status).not.toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: stranger.token } })).status).toBe(429);
    clock.advance(20);
    expect((await put("notes")).status).toBe(200);
  });

  test("the write budget is the company's, however its credential is spelled and however many tokens it holds", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 4 } });
    const { provider, stranger } = await parties(h);
    const company = await h.registerCompany({ netid: "SPELLING-CARS" });
    const secondJwt = await h.coreToken(company.netid, company.password);
    const thirdJwt = await h.coreToken(company.netid, company.password);
    const platform = await h.platformToken(company.netid, company.password);
    const put = (headers: Record<string, string>) => h.request("PUT", "/api/company/integration", { headers, body: { luggage: "native" } });
    // Four spellings and tokens of one company: the fifth write of the minute is refused whichever is used.
    expect((await put({ authorization: `Bearer ${secondJwt}` })).status).toBe(200);
    expect((await put({ authorization: `bearer ${secondJwt}` })).status).toBe(200);
    expect((await put({ authorization: `Bearer  ${secondJwt}` })).status).toBe(200);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: platform } })).status).toBe(404);
    for (const headers of [{ authorization: `BEARER ${thirdJwt}` }, { authorization: `Bearer ${thirdJwt} ` }, { authorization: `Bearer ${platform}` }]) {
      const refused = await put(headers);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ success: false, code: "RATE_LIMITED" });
      expect(refused.headers.get("ratelimit-limit")).toBe("4");
    }
    // Other companies keep their own budgets.
    expect((await put({ authorization: `Bearer ${provider.jwt}` })).status).toBe(200);
    expect((await put({ authorization: `Bearer ${stranger.jwt}` })).status).toBe(200);
    clock.advance(15);
    expect((await put({ authorization: `bearer  ${thirdJwt}` })).status).toBe(200);
  });

  test("a credential that does not authenticate spends its client address's write budget, whatever it says", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 3 } });
    const { provider } = await parties(h);
    const statuses: number[] = [];
    for (const credential of ["forged-1", "forged-2", "forged-3", "forged-4"])
      statuses.push((await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${credential}` }, body: { luggage: "native" } })).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await h.request("POST", "/api/fleet", { body: {} })).status).toBe(429);
    // A company's authenticated writes do not share the address's budget.
    expect((await integrate(h, provider, { luggage: "native" })).status).toBe(200);
  });

  test("GET cancelTripByResNo changes state, so it spends the write budget like its POST", async () => {
    const clock = new ManualClock(Math.floor(Date.now() / 1000));
    h = createHarness({ clock, rateLimits: { searchPerMinute: 0, sendTripPerMinute: 0, writesPerMinute: 3 } });
    const { requester, provider } = await parties(h);
    const trips = [];
    for (let i = 0; i < 4; i++) trips.push(regularTrip(requester.netid, provider.netid));
    const ids: string[] = [];
    for (const trip of trips) ids.push((await sendTrip(h, requester, trip)).body.transactionId);
    const cancel = (resNo: string, path = "cancelTripByResNo") => h.request("GET", `/Platform.svc/${path}/${requester.netid}/${resNo}/V1`, { headers: { token: requester.token } });
    expect((await cancel(trips[0].affiliateReservation.requesterResNo)).status).toBe(200);
    expect((await cancel(trips[1].affiliateReservation.requesterResNo, "CANCELTRIPBYRESNO")).status).toBe(200);
    expect((await h.request("POST", `/Platform.svc/cancelTripByResNo/${requester.netid}/${trips[2].affiliateReservation.requesterResNo}`, { headers: { token: requester.token } })).status).toBe(200);
    const refused = await cancel(trips[3].affiliateReservation.requesterResNo);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMITED");
    // The refused cancel did nothing.
    const statusOf = async (id: string) => (await h.request("GET", `/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } })).body.data.lastStatus;
    expect(await statusOf(ids[0])).toBe("CANCEL");
    expect(await statusOf(ids[3])).toBe("BOOKING_REQUEST");
  });
});
