import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, routed, type Harness } from "../../../support/harness";
import { addVehicle, company } from "../../../support/fleet";
import { fastFleetSearch } from "../../../../adapters/http/core/fleet-search-fast";
import { createLogger } from "../../../../adapters/logging";

let h: Harness;
afterEach(() => h?.close());

/** The lean handler over the harness's services, telling which requests it handed to the app. */
function lean(lines: string[] = []) {
  const handedOver: string[] = [];
  const handler = fastFleetSearch(h.services.searchFleet, h.services.authenticator, h.services.rateLimiter, h.services.searchAnswers, {
    logger: createLogger("info", { write: (chunk: string) => void lines.push(chunk) } as never),
    onResponse: (method, route, status, seconds) => h.services.metrics.observeRequest(method, route, status, seconds),
    fallback: (request) => {
      handedOver.push(request.url);
      return h.app.handle(request);
    },
  });
  return { handler, handedOver, lines };
}

const get = (query: string, headers: Record<string, string>) => new Request(`http://localhost/api/search/fleet${query}`, { headers });

/** An answer as a comparable record: status, body and headers (the budget's remaining count moves with every request). */
async function seen(response: Response) {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (key !== "ratelimit-remaining" && key !== "ratelimit-reset") headers[key] = value;
  });
  return { status: response.status, body: await response.text(), headers };
}

async function fleet() {
  const op = await company(h, { plan: "PROFESSIONAL" });
  await addVehicle(h, op.auth, { name: 'Quoted "Sedan" \\ ünï', description: "Leather\nseats 😀" });
  await addVehicle(h, op.auth, { name: "Escalade", type: "SUV", lat: 40.66, lon: -73.8, maxLuggage: null });
  await addVehicle(h, op.auth, { name: "Sprinter", type: "SPRINTER", lat: 40.7, lon: -73.9 });
  await h.indexed();
  return op;
}

describe("fleet search served outside Elysia's hooks", () => {
  test("answers the common request itself, byte for byte and header for header as the app's route does", async () => {
    h = createHarness({ rateLimits: { searchPerMinute: 1000, sendTripPerMinute: 0 } });
    const op = await fleet();
    const { handler, handedOver } = lean();
    const id = { "x-request-id": "req-1.A_b" };
    const queries = ["?airports=JFK", "?airports=jfk,LGA&limit=2&offset=1", "?airports=JFK&q=leather+seats", "?airports=JFK&q=%22sedan%22", "?lat=40.65&lon=-73.8&radius_km=20&types=suv,sedan", "?airports=JFK,XQZ&unknown=1", "?airports=JFK"];
    for (const query of queries) {
      const fast = await seen(await handler(get(query, { ...op.auth, ...id })));
      const full = await seen(await h.app.handle(get(query, { ...op.auth, ...id })));
      expect([query, fast]).toEqual([query, full]);
      expect(fast.status).toBe(200);
    }
    expect(handedOver).toEqual([]);
  });

  test("hands every unusual request to the app before spending anything, so its answer is the app's", async () => {
    h = createHarness({ rateLimits: { searchPerMinute: 1000, sendTripPerMinute: 0 } });
    const op = await fleet();
    const gone = await company(h);
    await h.services.users.remove(gone.netid);
    const platform = await h.platformToken(op.netid, op.password);
    const { handler, handedOver } = lean();
    const id = { "x-request-id": "req-2" };
    const cases: Array<[string, Record<string, string>, number, boolean]> = [
      ["?airports=JFK", {}, 401, true],
      ["?airports=JFK", { authorization: "Bearer not.a.token" }, 401, true],
      ["?airports=JFK", { authorization: `Bearer ${platform}` }, 401, true],
      ["?airports=JFK", { token: platform }, 401, true],
      ["?airports=JFK", gone.auth, 404, true],
      ["?airports=JFK", { authorization: `bearer  ${op.token}` }, 200, true],
      ["?lat=91&lon=0", op.auth, 400, true],
      ["?lat=1", op.auth, 400, true],
      [`?airports=JFK&q=${"x".repeat(2001)}`, op.auth, 400, true],
      ["?airports=JFK%00", op.auth, 400, true],
      ["?limit=0&airports=JFK", op.auth, 400, true],
      // A repeated parameter counts with its last value, as Elysia reads it: answered here alike.
      ["?airports=JFK&lat=40.6&lat=40.7&lon=-73.8", op.auth, 200, false],
    ];
    for (const [query, headers, status, handed] of cases) {
      const before = handedOver.length;
      const fast = await seen(await handler(get(query, { ...headers, ...id })));
      const full = await seen(await h.app.handle(get(query, { ...headers, ...id })));
      expect([query, fast]).toEqual([query, full]);
      expect([query, fast.status]).toEqual([query, status]);
      expect([query, handedOver.length]).toEqual([query, before + (handed ? 1 : 0)]);
    }
  });

  test("does the edge's duties: request id, security and budget headers, metrics, the access line, 429 with Retry-After", async () => {
    h = createHarness({ rateLimits: { searchPerMinute: 2, sendTripPerMinute: 0 } });
    const op = await fleet();
    const { handler, handedOver, lines } = lean();
    const echoed = await handler(get("?airports=JFK", { ...op.auth, "x-request-id": "trace-42" }));
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get("x-request-id")).toBe("trace-42");
    expect(echoed.headers.get("x-content-type-options")).toBe("nosniff");
    expect(echoed.headers.get("cache-control")).toBe("no-store");
    expect(echoed.headers.get("content-type")).toBe("application/json");
    expect([echoed.headers.get("ratelimit-limit"), echoed.headers.get("ratelimit-remaining")]).toEqual(["2", "1"]);
    const fresh = await handler(get("?airports=JFK", { ...op.auth, "x-request-id": "bad id!" }));
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const limited = await handler(get("?airports=JFK", op.auth));
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("cache-control")).toBe("no-store");
    expect(handedOver).toEqual([]);

    await new Promise((resolve) => setImmediate(resolve));
    const records = lines.join("").trim().split("\n").map((l) => JSON.parse(l));
    expect(records.map((r) => [r.requestId, r.method, r.route, r.path, r.company, r.status, r.msg])).toEqual([
      ["trace-42", "GET", "/api/search/fleet", "/api/search/fleet", op.netid, 200, "request"],
      [fresh.headers.get("x-request-id"), "GET", "/api/search/fleet", "/api/search/fleet", op.netid, 200, "request"],
      [limited.headers.get("x-request-id"), "GET", "/api/search/fleet", "/api/search/fleet", op.netid, 429, "request"],
    ]);
    expect(records.every((r) => typeof r.ms === "number" && r.level === 30)).toBe(true);
    const { text } = await h.services.metrics.render();
    expect(text).toContain('tripswitch_http_requests_total{method="GET",route="/api/search/fleet",status="200"} 2');
    expect(text).toContain('tripswitch_http_requests_total{method="GET",route="/api/search/fleet",status="429"} 1');
  });

  test("the listening service routes the search to it (Bun's router) and answers as app.handle does", async () => {
    h = createHarness();
    const op = await fleet();
    const routes = (h.app.config.serve as { routes: Record<string, Record<string, (r: Request) => Promise<Response>>> }).routes["/api/search/fleet"];
    const handler = routes.GET;
    let served = 0;
    routes.GET = (request) => {
      served++;
      return handler(request);
    };
    const server = h.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
    try {
      const native = await fetch(`http://127.0.0.1:${server.port}/api/search/fleet?airports=JFK`, { headers: op.auth });
      expect(served).toBe(1);
      const full = await h.app.handle(get("?airports=JFK", op.auth));
      expect(native.status).toBe(200);
      expect(await native.text()).toBe(await full.text());
      // The harness answers as the listening service does: through the same route table.
      const viaHarness = await routed(h.app, get("?airports=JFK", op.auth));
      expect([viaHarness.status, served]).toEqual([200, 2]);
    } finally {
      await h.app.stop();
    }
  });

  test("a write is authenticated once: the write budget's caller lookup serves the route too", async () => {
    h = createHarness();
    const op = await company(h);
    const users = h.services.users;
    const original = users.findCaller.bind(users);
    let lookups = 0;
    users.findCaller = (uid: string) => {
      lookups++;
      return original(uid);
    };
    try {
      await addVehicle(h, op.auth, { name: "Once" });
      expect(lookups).toBe(1);
      lookups = 0;
      const platform = await h.platformToken(op.netid, op.password);
      lookups = 0;
      const sent = await h.request("POST", "/Platform.svc/releaseToken/V1", { headers: { token: platform } });
      expect(sent.status).toBe(200);
      expect(lookups).toBe(1);
    } finally {
      users.findCaller = original;
    }
  });
});
