import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../support/harness";
import { parties, regularTrip, sendTrip } from "../../support/trips";

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

  test("every other write route shares a per-credential budget; the refused write does nothing", async () => {
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
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: provider.token } })).status).not.toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: provider.token } })).status).not.toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: provider.token } })).status).not.toBe(429);
    expect((await h.request("GET", `/Platform.svc/retryTransaction/${crypto.randomUUID()}`, { headers: { token: provider.token } })).status).toBe(429);
    clock.advance(20);
    expect((await put("notes")).status).toBe(200);
  });
});
