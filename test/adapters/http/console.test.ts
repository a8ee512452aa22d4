import { afterAll, describe, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";
import { consoleApp } from "../../../adapters/console/routes";
import { mapTilesFrom } from "../../../adapters/console/tiles";

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
    // Images: this origin, data: URLs and the map tiles' origin (OpenStreetMap's by default), nothing else.
    expect(csp).toContain("img-src 'self' data: https://tile.openstreetmap.org;");
    expect(csp.replace("https://tile.openstreetmap.org", "")).not.toContain("http");
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
    expect([...seen].sort()).toEqual([
      "api.js", "app.js", "availability.js", "booking.js", "bookings.js", "breakdown.js", "csv.js", "deliveries.js", "dom.js", "field-errors.js",
      "fleet-forms.js", "fleet.js", "flight.js", "format.js", "live.js", "map.js", "newtrip.js", "offers.js", "partners.js", "place-picker.js", "rates.js", "settings.js",
      "statements.js",
    ]);
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

  test("the map library (Leaflet, marker clustering) is served from this origin, without source-map references", async () => {
    for (const [name, type] of [["leaflet.js", "javascript"], ["leaflet.markercluster.js", "javascript"], ["leaflet.css", "text/css"], ["MarkerCluster.css", "text/css"], ["MarkerCluster.Default.css", "text/css"]]) {
      const res = await h.request("GET", `/console/assets/${name}`);
      expect([name, res.status]).toEqual([name, 200]);
      expect(res.headers.get("content-type")).toContain(type);
      expect(res.text).not.toContain("sourceMappingURL");
    }
    expect((await h.request("GET", "/console/assets/leaflet.js")).text).toContain("Leaflet 1.9");
  });

  test("config.json tells the maps the tile template and its attribution (OpenStreetMap's by default)", async () => {
    const res = await h.request("GET", "/console/config.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body).toEqual({ map: { tiles: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", attribution: "© OpenStreetMap contributors" } });
  });

  test("the policy names exactly the configured tile origin; with tiles off, images come only from this origin", async () => {
    const custom = consoleApp(mapTilesFrom("https://127.0.0.1:8089/t/{z}/{x}/{y}.png", "© Local tiles"));
    const page = await custom.handle(new Request("http://localhost/console"));
    expect(page.headers.get("content-security-policy")).toContain("img-src 'self' data: https://127.0.0.1:8089; connect-src 'self'");
    expect(await (await custom.handle(new Request("http://localhost/console/config.json"))).json()).toEqual({ map: { tiles: "https://127.0.0.1:8089/t/{z}/{x}/{y}.png", attribution: "© Local tiles" } });
    // Defence in depth: an origin that is not one https host never reaches the policy, however the tiles were built.
    const forged = consoleApp({ template: "https://x/{z}/{x}/{y}.png", origin: "https://*; script-src *", attribution: "x" });
    expect((await forged.handle(new Request("http://localhost/console"))).headers.get("content-security-policy")).toContain("img-src 'self' data:; ");
    const off = consoleApp(mapTilesFrom("off"));
    expect((await off.handle(new Request("http://localhost/console"))).headers.get("content-security-policy")).toContain("img-src 'self' data:; ");
    expect(await (await off.handle(new Request("http://localhost/console/config.json"))).json()).toEqual({ map: { tiles: null, attribution: "© OpenStreetMap contributors" } });
  });

  test("the detailed land outline (the maps' fallback) is shipped: land rings and their holes, gzipped when asked", async () => {
    const res = await h.request("GET", "/console/assets/land.json");
    expect(res.status).toBe(200);
    const { viewBox, path, holes } = JSON.parse(res.text);
    expect(viewBox).toEqual([0, 0, 360, 180]);
    expect(path.length).toBeGreaterThan(1_000_000);
    expect(path).toMatch(/^M\d+\.\d{3} \d+\.\d{3}L/);
    expect(holes).toMatch(/^M\d/);
    const zipped = await h.app.handle(new Request("http://localhost/console/assets/land.json", { headers: { "accept-encoding": "gzip" } }));
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
  });
});
