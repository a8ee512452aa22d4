import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { signIn as signInAt, startConsole, type ConsoleFixture } from "../../support/browser";

// New trip places the drop-off before it asks for prices (docs/places.md#drop-offs-and-stops): found through
// GET /api/places (a Photon-compatible geocoder served here on loopback, then the city's centre) or clicked on the
// map, and shows the breakdown of the option it will book; in a real Chromium against the demo data.

const PARK_AVE = { lat: 40.7536, lon: -73.9767 };
const asked: string[] = [];
const geocoder = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const q = new URL(request.url).searchParams.get("q") ?? "";
    asked.push(q);
    const found = /200 park ave/i.test(q);
    return Response.json({
      type: "FeatureCollection",
      features: found
        ? [{ type: "Feature", geometry: { type: "Point", coordinates: [PARK_AVE.lon, PARK_AVE.lat] }, properties: { name: "200 Park Avenue", city: "New York", countrycode: "US" } }]
        : [],
    });
  },
});

let page: Page;
let consoleApp: ConsoleFixture;

beforeAll(async () => {
  consoleApp = await startConsole({
    env: { GEOCODER_URL: `http://127.0.0.1:${geocoder.port}/api`, OUTBOUND_ALLOW_PRIVATE: "1" },
    tokensFor: ["DEMO-PLATFORM"],
    shotPrefix: "places-",
  });
  ({ page } = consoleApp);
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
  geocoder.stop(true);
});

/** The drop-off the next POST /api/quotes sends, and its answer. */
async function quoteAsked(): Promise<{ dropOff: Record<string, string>; answer: any }> {
  const sent = page.waitForRequest((r: Request) => r.url().endsWith("/api/quotes") && r.method() === "POST");
  const answered = page.waitForResponse((r) => r.url().endsWith("/api/quotes") && r.request().method() === "POST");
  await page.getByRole("button", { name: "Get prices" }).click();
  const dropOff = (await sent).postDataJSON().locations.dropOff;
  return { dropOff, answer: ((await (await answered).json()) as any).data };
}

const lines = (o: { breakdown?: Array<{ name: string; amount: string }> }) => (o.breakdown ?? []).map((l) => `${l.name} ${l.amount}`);

describe("New trip places the drop-off before it quotes (docs/places.md#drop-offs-and-stops)", () => {
  test("an address the geocoder finds is sent as lat/lon, priced by the operator's route, and the booking's breakdown shown", async () => {
    await signInAt(page, consoleApp.server.base, "DEMO-PLATFORM");
    await consoleApp.nav("New trip");
    await page.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await page.getByLabel("Drop-off address").fill("200 Park Ave");
    await page.getByLabel("Drop-off city").fill("New York");
    await page.getByLabel("Drop-off country (2 letters)").fill("US");
    await page.getByRole("button", { name: "Find the drop-off" }).click();
    const found = page.getByRole("list", { name: "Places found" });
    await found.getByRole("button", { name: "200 Park Avenue, New York" }).waitFor();
    // The geocoder's address first, then the city's centre to choose instead.
    expect(await found.locator("li").allInnerTexts()).toEqual(["200 Park Avenue, New York address", "New York City, NY, US city centre (approximate)"]);
    expect(await page.locator(".place-picker .placed").innerText()).toContain("Drop-off at 200 Park Avenue, New York (40.75360, -73.97670)");
    expect(asked).toContain("200 Park Ave, New York, US");

    const { dropOff, answer } = await quoteAsked();
    expect(dropOff).toMatchObject({ address: "200 Park Ave", city: "New York", country: "US", lat: String(PARK_AVE.lat), lon: String(PARK_AVE.lon) });
    expect(answer.warnings.map((w: { code: string }) => w.code)).not.toContain("DROPOFF_APPROXIMATE");
    // The demo operator's JFK → Midtown sedan: its flat route fare, not the car's own minimum.
    const sedan = answer.options.find((o: any) => o.provider.netid === "ACME-LIMO" && o.vehType === "SEDAN");
    expect(sedan.breakdown[0]).toMatchObject({ kind: "BASE", id: "jfk-midtown-sedan" });

    // The booking it will make: the first option until another is chosen, with its breakdown and total.
    const summary = page.getByRole("region", { name: "The booking you will make" });
    await summary.waitFor();
    const shown = async () => (await summary.locator("ul.breakdown li").allInnerTexts()).map((l) => l.replace(/\s+/g, " ").trim());
    expect(await shown()).toEqual(lines(answer.options[0]));
    expect(await summary.locator(".total").innerText()).toBe(`Total ${answer.options[0].fee} ${answer.options[0].currency}`);
    expect(await summary.innerText()).toContain("Drop-off at 200 Park Avenue");
    await page.getByRole("radio", { name: `Choose ${sedan.name} with ${sedan.provider.name}` }).first().check();
    expect(await shown()).toEqual(lines(sedan));
    await consoleApp.shot("newtrip-placed");
  }, 120_000);

  test("an address nothing finds is placed at its city's centre and quoted as approximate; a map click places it exactly", async () => {
    await page.getByLabel("Drop-off address").fill("1 Unknown Plaza");
    expect(await page.locator(".place-picker .placed").innerText()).toContain("Not placed yet");
    const { dropOff, answer } = await quoteAsked();
    // Sent as the city (no coordinates): the quote places it at the same centre and says so.
    expect(dropOff).toEqual({ locationType: "address", address: "1 Unknown Plaza", city: "New York City", state: "NY", country: "US" });
    expect(answer.warnings.map((w: { code: string }) => w.code)).toContain("DROPOFF_APPROXIMATE");
    await page.getByRole("table", { name: "Quote options" }).waitFor();
    const summary = page.getByRole("region", { name: "The booking you will make" });
    expect(await summary.innerText()).toContain("centre of New York City, NY, US (approximate)");

    // A click on the map: that point, sent as lat/lon.
    const map = page.locator(".place-picker div.map");
    await map.waitFor();
    await page.locator(".place-picker figure[data-basemap]:not([data-basemap='loading'])").waitFor();
    await map.click({ position: { x: 120, y: 100 } });
    await page.locator(".place-picker .placed", { hasText: "point clicked on the map" }).waitFor();
    const clicked = await quoteAsked();
    expect(Number(clicked.dropOff.lat)).toBeWithin(-90, 90);
    expect(Number(clicked.dropOff.lon)).toBeWithin(-180, 180.000001);
    expect(clicked.dropOff.lat).not.toBe(String(PARK_AVE.lat));
    await consoleApp.shot("newtrip-map-click");
  }, 120_000);

  test("a drop-off nothing can place is shown at its fields, and no quote is asked", async () => {
    await page.getByLabel("Drop-off address").fill("5 Nowhere Lane");
    await page.getByLabel("Drop-off city").fill("");
    await page.getByLabel("Drop-off country (2 letters)").fill("");
    let quoted = false;
    const watch = (r: Request) => {
      if (r.url().endsWith("/api/quotes") && r.method() === "POST") quoted = true;
    };
    page.on("request", watch);
    await page.getByRole("button", { name: "Get prices" }).click();
    const error = page.locator(".field-error", { hasText: "locations.dropOff" });
    await error.waitFor();
    expect(await error.innerText()).toContain("was not found");
    page.off("request", watch);
    expect(quoted).toBe(false);
  }, 60_000);
});
