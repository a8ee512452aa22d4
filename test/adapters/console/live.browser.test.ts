import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ARTIFACTS, signIn as signInAt, startBrowser } from "../../support/browser";
import { createHarness, FAST_DELIVERY, type Harness } from "../../support/harness";
import { startSandboxDispatcher } from "../../../src/services";
import { seedDemo, DEMO_LOGIN } from "../../../src/demo/seed";

// The demo's operators are sandboxes: their simulated dispatcher moves every trip they receive to CLOSE by itself.
// At this pace a trip runs its course in about 15 s (7 moves 1.5 s apart, 4 positions 1.1 s apart while en route).
const SANDBOX = { stepMs: 1500, positionMs: 1100, positions: 4 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let h: Harness;
let base: string;
let stopSandbox: () => void;
let stopServer: () => unknown;
const contexts: BrowserContext[] = [];
let provider: Page; // ACME-LIMO's bookings list
let watcher: Page; // ACME-LIMO's second tab: one booking
let requester: Page; // DEMO-PLATFORM
let bookedId = "";

const signIn = (page: Page, uid: string, hash = "") => signInAt(page, base, uid, { hash });

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `live-${name}.png`), fullPage: true });
/** Set once a page is shown; a reload would lose it. */
const mark = (page: Page) => page.evaluate(() => ((window as unknown as { unreloaded: boolean }).unreloaded = true));
const stillUnreloaded = (page: Page) => page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded === true);

beforeAll(async () => {
  h = createHarness({ delivery: FAST_DELIVERY, sandbox: SANDBOX });
  expect(await seedDemo(h.services)).toBe(true);
  await h.indexed();
  h.services.worker.start();
  stopSandbox = startSandboxDispatcher(h.services);
  const app = h.app.listen({ hostname: "127.0.0.1", port: 0 });
  stopServer = () => app.stop(true);
  base = `http://127.0.0.1:${app.server!.port}`;
  for (let i = 0; i < 2; i++) contexts.push(await startBrowser());
  provider = contexts[0].pages()[0] ?? (await contexts[0].newPage());
  watcher = await contexts[0].newPage();
  requester = contexts[1].pages()[0] ?? (await contexts[1].newPage());
  for (const p of [provider, watcher, requester]) p.setDefaultTimeout(15_000);
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  stopSandbox?.();
  await stopServer?.();
  await h?.close();
});

describe("the console follows the event stream", () => {
  test("a booking company lands on Bookings, with an empty state that says what to do; an operator is marked as a sandbox", async () => {
    await signIn(requester, "DEMO-PLATFORM");
    await requester.getByRole("heading", { name: "Bookings" }).waitFor();
    expect(await requester.locator('nav a[aria-current="page"]').innerText()).toBe("Bookings");
    await requester.getByText("No bookings yet.").waitFor();
    expect(await requester.getByRole("link", { name: "New trip" }).count()).toBeGreaterThan(0);
    await shot(requester, "requester-empty-bookings");

    await signIn(provider, "ACME-LIMO");
    // An operator lands on its fleet; the header says the company is a sandbox.
    await provider.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Fleet" }).and(provider.locator('[aria-current="page"]')).waitFor();
    expect(await provider.locator("header .badge.sandbox").innerText()).toBe("Sandbox");
    await provider.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Bookings" }).click();
    await provider.getByText("No bookings yet.").waitFor();
    await mark(provider);
    await signIn(watcher, "ACME-LIMO");
  }, 60_000);

  test("new trip: a wrong pickup is shown at its field; a network quote's options are listed and one is booked", async () => {
    await requester.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "New trip" }).click();
    await requester.getByLabel("Pickup airport (IATA code)").fill("ZZQ");
    await requester.getByLabel("Pickup time").fill("2027-01-15T08:00");
    await requester.getByRole("button", { name: "Get prices" }).click();
    const fieldError = requester.locator(".field", { has: requester.getByLabel("Pickup airport (IATA code)") }).locator(".field-error");
    await fieldError.waitFor();
    expect(await fieldError.innerText()).toContain("ZZQ");
    expect(await requester.getByLabel("Pickup airport (IATA code)").getAttribute("aria-invalid")).toBe("true");
    await shot(requester, "newtrip-error");

    await requester.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await requester.getByLabel("Passengers").fill("2");
    await requester.getByLabel("Luggage").fill("2");
    await requester.getByLabel("Drop-off address").fill("200 Park Ave");
    await requester.getByLabel("Drop-off city").fill("New York");
    await requester.getByLabel("Drop-off country (2 letters)").fill("US");
    await requester.getByRole("button", { name: "Get prices" }).click();
    const options = requester.getByRole("table", { name: "Quote options" });
    await options.waitFor();
    expect(await requester.locator(".field-error").count()).toBe(0);
    const rows = options.locator("tbody tr");
    expect(await rows.count()).toBeGreaterThan(1);
    // Each option names its operator, vehicle, price in the quote's currency and distance.
    expect(await rows.first().innerText()).toMatch(/Acme Limousine[\s\S]*\d+\.\d{2} USD[\s\S]*\d+(\.\d)? km/);
    await shot(requester, "newtrip-options");

    await requester.getByLabel("Passenger first name").fill("Ada");
    await requester.getByLabel("Passenger last name").fill("Lovelace");
    await requester.getByLabel("Your reservation number").fill("LIVE-1");
    await options.getByRole("button", { name: /^Book .* with Acme Limousine/ }).first().click();
    await requester.getByRole("heading", { name: "Booking LIVE-1" }).waitFor();
    bookedId = decodeURIComponent(new URL(requester.url()).hash.split("/")[2]);
    expect(bookedId).toMatch(UUID);
  }, 60_000);

  test("the booking page shows the whole id with a copy button and the pickup in its own zone, UTC on hover", async () => {
    const ids = requester.locator("p.ids code.id");
    expect(await ids.innerText()).toBe(bookedId);
    await requester.getByRole("button", { name: `Copy booking id ${bookedId}` }).waitFor();
    const pickup = requester.locator("dd.pickup-time time");
    // 08:00 at JFK in January is 13:00 UTC; the pickup reads one way only on the page.
    expect(await pickup.innerText()).toBe("Jan 15, 2027, 08:00 EST");
    expect(await pickup.getAttribute("title")).toContain("2027-01-15 13:00 UTC");
    expect(await requester.locator("dd.pickup-time").innerText()).toContain("America/New_York");
    expect(await requester.getByText("2027-01-15T08:00:00").count()).toBe(0);
    // No id cut to 8 hex digits (the sandbox's own number, SBX- and the id's last 8 in capitals, may be all digits).
    expect(await requester.getByText(/(?<!SBX-)\b[0-9a-f]{8}\b(?!-)/).count()).toBe(0);
  }, 30_000);

  test("the provider sees the trip arrive (badge, highlighted row) and move through to CLOSE, with no reload; both booking pages follow", async () => {
    const row = provider.locator(`tr[data-id="${bookedId}"]`);
    await row.waitFor();
    expect(await row.getAttribute("class")).toContain("fresh");
    expect(await row.locator(".badge.newtrips").innerText()).toBe("New");
    expect(await row.locator("code.id").innerText()).toBe(bookedId);
    // The list too reads the pickup in its own zone: the same words as the booking page.
    expect(await row.locator("time").innerText()).toBe("Jan 15, 2027, 08:00 EST");
    await shot(provider, "provider-new-trip");

    // The provider's second tab watches the booking; the requester's page is still open on it.
    await mark(requester);
    await watcher.goto(`${base}/console#/bookings/${bookedId}`);
    await watcher.getByRole("heading", { name: "Booking LIVE-1" }).waitFor();
    await mark(watcher);
    const position = watcher.locator("dd.chauffeur-position");
    const seen = new Set<string>();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && seen.size < 3) {
      const text = (await position.count()) ? await position.innerText() : "";
      if (text) seen.add(text);
      await Bun.sleep(200);
    }
    // The chauffeur moved on the provider's page without a click: three positions or more.
    expect(seen.size).toBeGreaterThanOrEqual(3);
    await shot(watcher, "provider-booking-en-route");

    await row.locator(".badge.s-CLOSE").waitFor({ timeout: 40_000 });
    await shot(provider, "provider-closed");
    await watcher.locator(".badge.s-CLOSE").first().waitFor({ timeout: 10_000 });
    await requester.locator(".badge.s-CLOSE").first().waitFor({ timeout: 10_000 });
    expect(await requester.getByText("status COMPLETE → CLOSE").count()).toBe(1);
    await shot(requester, "requester-booking-closed");
    for (const p of [provider, watcher, requester]) expect(await stillUnreloaded(p)).toBe(true);
  }, 60_000);

  test("a trip sent over HTTP while the provider is on another page: a badge on Bookings, then a highlighted row", async () => {
    await provider.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Partners" }).click();
    await provider.getByRole("heading", { name: "Partners" }).waitFor();
    const badge = provider.locator("nav .badge.newtrips");
    expect(await badge.isVisible()).toBe(false);
    const platform = await h.platformToken("DEMO-PLATFORM", DEMO_LOGIN.pw);
    const sent = await h.request("POST", "/Platform.svc/sendTrip/V1", {
      headers: { token: platform },
      body: {
        reservationType: "REGULAR",
        passengerCount: "1",
        passengers: [{ firstName: "Grace", lastName: "Hopper" }],
        locations: { pickup: { locationType: "airport", address: "LGA", time: "2027-02-01T10:30:00" } },
        affiliateReservation: { requesterId: "DEMO-PLATFORM", providerId: "ACME-LIMO", requesterResNo: "LIVE-2", action: "NEW" },
      },
    });
    expect(sent.text).toContain('"success":true');
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.innerText()).toBe("1 new");
    await shot(provider, "provider-badge");
    await provider.getByRole("navigation", { name: "Console" }).getByRole("link", { name: /^Bookings/ }).click();
    const row = provider.locator(`tr[data-id="${sent.body.transactionId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await badge.isVisible()).toBe(false);
    expect(await row.getAttribute("class")).toContain("fresh");
    expect(await stillUnreloaded(provider)).toBe(true);
  }, 30_000);

  test("one stream per tab; signing out closes it", async () => {
    // Two ACME-LIMO tabs (list and booking), one stream each.
    expect(h.services.liveHub.openStreams("ACME-LIMO")).toBe(2);
    await watcher.getByRole("button", { name: "Sign out" }).click();
    await watcher.getByRole("button", { name: "Sign in" }).waitFor();
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && h.services.liveHub.openStreams("ACME-LIMO") > 1) await Bun.sleep(50);
    expect(h.services.liveHub.openStreams("ACME-LIMO")).toBe(1);
  }, 30_000);
});
