import { afterAll, expect, test } from "bun:test";
import { sucrose } from "elysia/sucrose";
import { createHarness } from "../../support/harness";

// docs/performance.md#what-each-request-parses: Elysia reads each hook's and handler's source to decide what a request
// parses. A hook that hands its context on whole (`(ctx) => check(ctx)`) makes every request of its route parse its
// cookies (and query, headers…), though no route of ours reads a cookie. sendTrip parsed them on every quote.
const h = createHarness();
afterAll(() => h.close());

const blank = () => ({ body: false, cookie: false, headers: false, query: false, set: false, server: false, url: false, route: false, path: false });
const HOOKS = ["parse", "transform", "beforeHandle", "afterHandle", "mapResponse", "afterResponse", "error"] as const;

type Route = { method: string; path: string; handler: unknown; hooks?: Record<string, unknown> };

test("no route's handler or hook reads the request's cookies, so none is parsed", () => {
  const routes = (h.app as unknown as { routes: Route[] }).routes;
  const reading: string[] = [];
  let functions = 0;
  for (const route of routes) {
    const fns = [route.handler, ...HOOKS.flatMap((k) => [route.hooks?.[k] ?? []].flat())].map((x) => (x as { fn?: unknown })?.fn ?? x);
    for (const fn of fns) {
      if (typeof fn !== "function") continue;
      functions++;
      if (sucrose({ handler: fn } as never, blank()).cookie) reading.push(`${route.method} ${route.path}: ${String(fn).slice(0, 80).replace(/\s+/g, " ")}`);
    }
  }
  // Every route was looked at: sendTrip's transform among them.
  expect(routes.some((r) => r.method === "POST" && r.path === "/Platform.svc/sendTrip")).toBe(true);
  expect(functions).toBeGreaterThan(routes.length);
  expect(reading).toEqual([]);
});

test("the check finds a hook that hands its context on whole", () => {
  const handsOn = (ctx: unknown) => String(ctx);
  expect(sucrose({ handler: (ctx: unknown) => handsOn(ctx) } as never, blank()).cookie).toBe(true);
  expect(sucrose({ handler: ({ body }: { body: unknown }) => handsOn(body) } as never, blank()).cookie).toBe(false);
});
