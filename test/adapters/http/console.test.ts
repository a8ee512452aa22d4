import { afterAll, describe, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";

describe("the console's files", () => {
  const h = createHarness();
  afterAll(() => h.close());

  test("/console is the app's page, with a policy that allows only this origin's scripts and API", async () => {
    const res = await h.request("GET", "/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain('src="/console/assets/app.js"');
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("http");
  });

  test("every module the app imports is served, as JavaScript, and refers to no other host", async () => {
    const seen = new Set<string>();
    const queue = ["app.js"];
    while (queue.length && seen.size < 50) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await h.request("GET", `/console/assets/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("javascript");
      // Only the SVG namespace and placeholder hosts (*.example) appear as URLs.
      expect(res.text).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg|[a-z.]+\.example\/)/);
      expect(res.text).not.toMatch(/(localStorage|sessionStorage|indexedDB)\.|document\.cookie/);
      for (const m of res.text.matchAll(/from "\.\/([a-z-]+\.js)"/g)) queue.push(m[1]);
    }
    expect([...seen].sort()).toEqual(["api.js", "app.js", "booking.js", "bookings.js", "csv.js", "deliveries.js", "dom.js", "fleet.js", "format.js", "live.js", "map.js", "newtrip.js", "partners.js", "settings.js"]);
    expect((await h.request("GET", "/console/assets/style.css")).headers.get("content-type")).toContain("text/css");
    expect((await h.request("GET", "/console/assets/nothing.js")).status).toBe(404);
  });

  test("the world basemap is shipped: an SVG path over the whole 360 × 180 frame, gzipped when asked", async () => {
    const res = await h.request("GET", "/console/assets/world.json");
    expect(res.status).toBe(200);
    const { viewBox, path } = JSON.parse(res.text);
    expect(viewBox).toEqual([0, 0, 360, 180]);
    expect(path.length).toBeGreaterThan(100_000);
    expect(path).toMatch(/^M\d/);
    const zipped = await h.app.handle(new Request("http://localhost/console/assets/world.json", { headers: { "accept-encoding": "gzip" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
  });
});
