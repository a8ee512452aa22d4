import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import type { BrowserContext, Page } from "playwright-core";
import { ARTIFACTS, openPage, signIn as signInAt, startDemoServer } from "../../support/browser";
import { postJson, type RunningServer } from "../../support/process";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { regularTrip } from "../../support/trips";

const PW = DEMO_LOGIN.pw;
const JFK = { lat: 40.6413, lon: -73.7781 };
/** The Empire State Building: Midtown Manhattan, on land. */
const MIDTOWN = { lat: 40.7484, lon: -73.9857 };
const CHAUFFEUR = { lat: 40.6602, lon: -73.8303 };

/** A 256 × 256 PNG: pale grey with a darker frame, so a screenshot shows the tile grid. */
function tilePng(): Buffer {
  const size = 256;
  const raw = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++) {
    const row = y * (size * 3 + 1);
    for (let x = 0; x < size; x++) {
      const edge = x === 0 || y === 0;
      raw.fill(edge ? 150 : 228, row + 1 + x * 3, row + 4 + x * 3);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "ascii");
    data.copy(out, 8);
    out.writeUInt32BE(Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

/** A loopback tile server: a PNG for every /tiles/{z}/{x}/{y}.png while `up`, 404 otherwise; it records each path. */
function startTileServer() {
  const png = tilePng();
  const state = { up: true, requested: [] as string[], referers: new Set<string>() };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      state.requested.push(path);
      state.referers.add(request.headers.get("referer") ?? "(none)");
      if (state.up && /^\/tiles\/\d+\/\d+\/\d+\.png$/.test(path)) return new Response(new Uint8Array(png), { headers: { "content-type": "image/png", "cache-control": "no-store" } });
      return new Response("no such tile", { status: 404 });
    },
  });
  return { state, origin: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/** The Web Mercator tile holding a position at zoom z (the scheme Leaflet and OpenStreetMap use). */
function tileOf(lat: number, lon: number, z: number) {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return { x: Math.floor(((lon + 180) / 360) * n), y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n) };
}

/**
 * The tiles' origin as the service and the page know it: CONSOLE_MAP_TILES takes https origins only, so the
 * browser's requests to it are answered by the loopback tile server (Referer and path passed through).
 */
const TILE_ORIGIN = "https://tiles.test";

let server: RunningServer;
let tiles: ReturnType<typeof startTileServer>;
let browser: BrowserContext;
let page: Page;
let transactionId: string;
const policyViolations: string[] = [];

/** Any Content-Security-Policy violation the page reports in its console. */
function watchPolicy(p: Page) {
  p.on("console", (m) => {
    if (/Content.Security.Policy/i.test(m.text())) policyViolations.push(m.text());
  });
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

const signIn = (uid: string) => signInAt(page, server.base, uid);

/** Where a marker's centre is, and where the map puts a position, in the map container's pixels. */
async function markerAndPosition(pin: string, at: { lat: number; lon: number }) {
  return page.evaluate(
    ([cls, lat, lon]) => {
      const figure = document.querySelector(".mapbox") as HTMLElement & { map: { latLngToContainerPoint(p: number[]): { x: number; y: number } } };
      const box = figure.querySelector("div.map")!.getBoundingClientRect();
      const pinBox = figure.querySelector(`.leaflet-marker-icon.${cls}`)!.getBoundingClientRect();
      const p = figure.map.latLngToContainerPoint([lat as number, lon as number]);
      return { marker: { x: pinBox.left + pinBox.width / 2 - box.left, y: pinBox.top + pinBox.height / 2 - box.top }, position: p };
    },
    [pin, at.lat, at.lon] as const,
  );
}

beforeAll(async () => {
  tiles = startTileServer();
  server = await startDemoServer({ CONSOLE_MAP_TILES: `${TILE_ORIGIN}/tiles/{z}/{x}/{y}.png` }, [["company", "set-sandbox", "ACME-LIMO", "off"]]);
  // An airport pickup named only by its IATA code (no lat/lon), a stop, and a drop-off in Midtown Manhattan.
  const trip = regularTrip("DEMO-PLATFORM", "ACME-LIMO", {}, { requesterResNo: "MAPS-1" });
  const locations = trip.locations as Record<string, Record<string, unknown>>;
  const { lat: _lat, lon: _lon, ...pickup } = locations.pickup;
  trip.locations = {
    pickup,
    stops: [{ locationType: "address", address: "Grand Army Plaza, Brooklyn", lat: "40.6743", lon: "-73.9702", stopNumber: 1 }],
    dropOff: { ...locations.dropOff, lat: String(MIDTOWN.lat), lon: String(MIDTOWN.lon) },
  };
  const platform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "DEMO-PLATFORM", pw: PW })).body;
  const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, trip, { token: platform });
  expect(sent.status).toBe(200);
  transactionId = sent.body.transactionId;
  // The provider confirms with its chauffeur's position.
  const acme = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: PW })).body;
  const moved = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, { status: "CONFIRMED", lat: String(CHAUFFEUR.lat), lon: String(CHAUFFEUR.lon) }, { token: acme });
  expect(moved.status).toBe(200);
  ({ browser, page } = await openPage(20_000));
  await browser.route(`${TILE_ORIGIN}/**`, async (route) => {
    const asked = new URL(route.request().url());
    const referer = await route.request().headerValue("referer");
    const answer = await fetch(`${tiles.origin}${asked.pathname}${asked.search}`, { headers: referer ? { referer } : {} });
    await route.fulfill({ status: answer.status, headers: { "content-type": answer.headers.get("content-type") ?? "text/plain", "cache-control": "no-store" }, body: Buffer.from(await answer.arrayBuffer()) });
  });
  watchPolicy(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  tiles?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

describe("the console's maps over a configured tile server", () => {
  test("the page policy allows images from exactly the tile server's origin; the console learns the template", async () => {
    const res = await fetch(`${server.base}/console`);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain(`img-src 'self' data: ${TILE_ORIGIN};`);
    expect(csp).not.toContain("openstreetmap");
    const config = await (await fetch(`${server.base}/console/config.json`)).json();
    expect(config).toEqual({ map: { tiles: `${TILE_ORIGIN}/tiles/{z}/{x}/{y}.png`, attribution: "© OpenStreetMap contributors" } });
  });

  test("the booking map requests tiles around the trip and draws pickup (at its airport), stop, drop-off and chauffeur", async () => {
    await signIn("ACME-LIMO");
    await page.goto(`${server.base}/console#/bookings/${transactionId}`);
    const figure = page.locator("figure.mapbox");
    await figure.locator(".leaflet-marker-icon.pin-pickup").waitFor();
    await page.locator('figure.mapbox[data-basemap="tiles"]').waitFor();
    await page.waitForFunction(() => Array.from(document.querySelectorAll(".leaflet-tile")).every((t) => (t as HTMLImageElement).complete));
    for (const pin of ["pin-dropoff", "pin-stop", "pin-chauffeur"]) expect(await figure.locator(`.leaflet-marker-icon.${pin}`).count()).toBe(1);
    // Legend and attribution.
    const legend = figure.getByRole("list", { name: "Legend" });
    for (const item of ["Pickup", "Stop", "Drop-off", "Chauffeur's last position"]) expect(await legend.getByText(item, { exact: true }).count()).toBe(1);
    expect(await figure.locator(".leaflet-control-attribution").innerText()).toContain("© OpenStreetMap contributors");
    // Tiles came from the loopback server, at the map's zoom, including the one holding JFK.
    const zoom = Math.round(await page.evaluate(() => (document.querySelector(".mapbox") as unknown as { map: { getZoom(): number } }).map.getZoom()));
    const paths = tiles.state.requested.filter((p) => p.startsWith("/tiles/"));
    expect(paths.length).toBeGreaterThan(3);
    for (const p of paths) expect(p).toMatch(/^\/tiles\/\d{1,2}\/\d+\/\d+\.png$/);
    const jfk = tileOf(JFK.lat, JFK.lon, zoom);
    const midtown = tileOf(MIDTOWN.lat, MIDTOWN.lon, zoom);
    expect(paths).toContain(`/tiles/${zoom}/${jfk.x}/${jfk.y}.png`);
    expect(paths).toContain(`/tiles/${zoom}/${midtown.x}/${midtown.y}.png`);
    // Each tile request names the console's origin as its Referer (tile servers ask for one), never the page's path.
    expect([...tiles.state.referers]).toEqual([`${server.base}/`]);
    // The pickup has no coordinates: the booking places it at JFK (the airport directory's position), and the map
    // draws it there, within a few pixels.
    const jwt = (await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: PW })).body.token;
    const { places } = await (await fetch(`${server.base}/api/reservation/${transactionId}`, { headers: { authorization: `Bearer ${jwt}` } })).json();
    expect(places.pickup).toMatchObject({ by: "airport", airport: { iata: "JFK" } });
    expect(Math.abs(places.pickup.lat - JFK.lat) + Math.abs(places.pickup.lon - JFK.lon)).toBeLessThan(0.02);
    const { marker, position } = await markerAndPosition("pin-pickup", places.pickup);
    expect(Math.abs(marker.x - position.x)).toBeLessThan(4);
    expect(Math.abs(marker.y - position.y)).toBeLessThan(4);
    expect(await figure.locator(".leaflet-marker-icon.pin-pickup").getAttribute("title")).toContain("(JFK)");
    expect(policyViolations).toEqual([]);
    await shot("map-booking-tiles");
  }, 60_000);

  test("the fleet map and a fleet search cluster their markers over the tiles", async () => {
    await page.getByRole("link", { name: "Fleet" }).click();
    // The fleet page's Map and Search sit in tabs beside its table.
    await page.getByRole("tab", { name: "Map" }).click();
    const fleetMap = page.locator("figure.mapbox").filter({ has: page.locator("figcaption", { hasText: /^Your fleet: / }) });
    await fleetMap.locator(".leaflet-marker-icon").first().waitFor();
    // The fleet page is long (its table): each map is shot on its own, while its tab shows it.
    await fleetMap.screenshot({ path: join(ARTIFACTS, "map-fleet-tiles.png") });
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText(/^Search: \d+ matches/).waitFor();
    const search = page.locator("figure.mapbox").filter({ has: page.locator("figcaption", { hasText: /^Search: / }) });
    await search.locator(".marker-cluster").first().waitFor();
    // Fewer markers on screen than matches: they are grouped, and a group says how many it holds.
    const shown = Number(/Search: (\d+) matches, (\d+) shown/.exec(await search.locator("figcaption").innerText())![2]);
    const groups = await search.locator(".marker-cluster").allInnerTexts();
    const held = groups.reduce((sum, t) => sum + Number(t.trim()), 0) + (await search.locator(".leaflet-marker-icon.pin-hit").count());
    expect(shown).toBeGreaterThan(10);
    expect(groups.length).toBeLessThan(shown);
    expect(held).toBe(shown);
    expect(policyViolations).toEqual([]);
    await search.screenshot({ path: join(ARTIFACTS, "map-fleet-search-tiles.png") });
  }, 60_000);

  test("with the tile server answering 404 the booking map falls back to the shipped outline (Manhattan on land)", async () => {
    tiles.state.up = false;
    tiles.state.requested.length = 0;
    // A new page (the tiles were sent with no-store: nothing cached).
    const fresh = await browser.newPage();
    await page.close();
    page = fresh;
    page.setDefaultTimeout(20_000);
    watchPolicy(page);
    await signIn("ACME-LIMO");
    await page.goto(`${server.base}/console#/bookings/${transactionId}`);
    await page.locator('figure.mapbox[data-basemap="outline"]').waitFor();
    await page.getByText("Map tiles could not be loaded: the built-in outline is shown.").waitFor();
    await page.locator('figure.mapbox[data-outline="drawn"] .leaflet-outline-pane canvas').first().waitFor();
    expect(tiles.state.requested.length).toBeGreaterThan(0);
    // The outline's canvas: its colour at a position on the map.
    const colourAt = (at: { lat: number; lon: number }) =>
      page.evaluate(
        ([lat, lon]) => {
          const figure = document.querySelector(".mapbox") as HTMLElement & { map: { latLngToContainerPoint(p: number[]): { x: number; y: number } } };
          const box = figure.querySelector("div.map")!.getBoundingClientRect();
          const canvas = figure.querySelector(".leaflet-outline-pane canvas") as HTMLCanvasElement;
          const c = canvas.getBoundingClientRect();
          const p = figure.map.latLngToContainerPoint([lat as number, lon as number]);
          const x = Math.round((box.left + p.x - c.left) * (canvas.width / c.width));
          const y = Math.round((box.top + p.y - c.top) * (canvas.height / c.height));
          return [...canvas.getContext("2d")!.getImageData(x, y, 1, 1).data];
        },
        [at.lat, at.lon] as const,
      );
    for (const pin of ["pin-pickup", "pin-dropoff", "pin-stop", "pin-chauffeur"]) expect(await page.locator(`figure.mapbox .leaflet-marker-icon.${pin}`).count()).toBe(1);
    expect(policyViolations).toEqual([]);
    await shot("map-booking-outline");
    // At city scale over Midtown: the outline has Manhattan on land and the Hudson as water.
    await page.evaluate(() => (document.querySelector(".mapbox") as unknown as { map: { setView(p: number[], z: number, o: object): void } }).map.setView([40.745, -73.99], 13, { animate: false }));
    let land: number[] = [];
    for (let i = 0; i < 50 && land[3] !== 255; i++) {
      await Bun.sleep(100);
      land = await colourAt(MIDTOWN);
    }
    expect(land).toEqual([0xf3, 0xef, 0xe6, 255]);
    expect(await colourAt({ lat: 40.755, lon: -74.012 })).toEqual([0, 0, 0, 0]);
    await shot("map-booking-outline-midtown");
  }, 90_000);
});
