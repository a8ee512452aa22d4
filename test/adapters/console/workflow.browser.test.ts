import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { signIn as signInAt, startConsole, type ConsoleFixture } from "../../support/browser";
import { postJson, type RunningServer } from "../../support/process";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { startReceiver } from "../../support/receiver";
import { soonTrip } from "../../support/trips";

// docs/operator.md#console (the console guards the dispatcher) and the console's part of docs/events.md (a revoked stream).
const PW = DEMO_LOGIN.pw;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let shot: ConsoleFixture["shot"];
let rx: ReturnType<typeof startReceiver>;
let acme: string; // ACME-LIMO's platform token
let fresh: string; // a new request (BOOKING_REQUEST) to ACME-LIMO
let complete: string; // a trip ACME-LIMO has taken to COMPLETE

const signIn = (uid: string) => signInAt(page, server.base, uid);

async function signOut() {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
}

async function lastStatus(transactionId: string): Promise<string> {
  const res = await fetch(`${server.base}/api/reservation/${transactionId}`, { headers: { token: acme } });
  return (await res.json()).data.lastStatus;
}

async function move(transactionId: string, status: string) {
  const res = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, { status }, { token: acme });
  expect(res.status).toBe(200);
}

const statusButtons = () => page.getByRole("group", { name: "Status actions" }).getByRole("button").allInnerTexts();
/** The status buttons once the booking is drawn again after a move (the notice shows first): waited for up to 10 s. */
async function statusButtonsBecome(expected: string[]): Promise<string[]> {
  let shown = await statusButtons();
  for (const until = Date.now() + 10_000; JSON.stringify(shown) !== JSON.stringify(expected) && Date.now() < until; shown = await statusButtons()) await Bun.sleep(100);
  return shown;
}

beforeAll(async () => {
  // ACME-LIMO answers by hand (not a sandbox), so its bookings wait for the console.
  consoleApp = await startConsole({ commands: [["company", "set-sandbox", "ACME-LIMO", "off"]], tokensFor: ["DEMO-PLATFORM"], shotPrefix: "workflow-" });
  ({ server, page, shot } = consoleApp);
  page.setDefaultTimeout(15_000);
  rx = startReceiver();
  expect((await consoleApp.call("DEMO-PLATFORM", "PUT", "/api/company/integration", { webhookUrl: `${rx.url}/hooks` })).status).toBe(200);
  const platform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "DEMO-PLATFORM", pw: PW })).body;
  acme = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: PW })).body;
  const send = async (resNo: string) => {
    const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, soonTrip("DEMO-PLATFORM", "ACME-LIMO", {}, { requesterResNo: resNo }), { token: platform });
    expect(sent.status).toBe(200);
    return sent.body.transactionId as string;
  };
  fresh = await send("WF-NEW");
  complete = await send("WF-DONE");
  await move(complete, "CONFIRMED");
  await move(complete, "COMPLETE"); // a forward skip along the main path
}, 120_000);

afterAll(async () => {
  rx?.stop();
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("the console guards the dispatcher (docs/operator.md#console)", () => {
  test("a new request offers Accept and Decline first and no skip ahead; Decline asks first, and going back sends nothing", async () => {
    await signIn("ACME-LIMO");
    const sent: string[] = [];
    const watch = (r: Request) => r.url().includes("/providerUpdateStatus") && sent.push(r.postData() ?? "");
    page.on("request", watch);
    await page.goto(`${server.base}/console#/bookings/${fresh}`);
    await page.getByRole("heading", { name: "Booking WF-NEW" }).waitFor();
    // BOOKING_REQUEST may move to PENDING, CONFIRMED, REJECT (FAILED is the exchange's, CANCEL the requester's).
    expect(await statusButtons()).toEqual(["Accept", "Decline", "Move to PENDING"]);
    expect(await page.getByRole("button", { name: "Move to CLOSE" }).count()).toBe(0);
    await shot("new-request");

    await page.getByRole("button", { name: "Decline", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Decline?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("REJECT is final");
    await shot("decline-dialog");
    await dialog.getByRole("button", { name: "Go back" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(sent).toEqual([]);
    expect(await lastStatus(fresh)).toBe("BOOKING_REQUEST");

    // Accept is not final: sent at once.
    await page.getByRole("button", { name: "Accept", exact: true }).click();
    await page.getByText("Accept: done.").waitFor();
    expect(sent.map((b) => JSON.parse(b).status)).toEqual(["CONFIRMED"]);
    expect(await lastStatus(fresh)).toBe("CONFIRMED");
    expect(await statusButtonsBecome(["Move to ACKNOWLEDGED", "Move to ASSIGNED"])).toEqual(["Move to ACKNOWLEDGED", "Move to ASSIGNED"]);
    page.off("request", watch);
  }, 60_000);

  test("a final status asks for confirmation: Move to CLOSE on a complete trip", async () => {
    await page.goto(`${server.base}/console#/bookings/${complete}`);
    await page.getByRole("heading", { name: "Booking WF-DONE" }).waitFor();
    expect(await statusButtons()).toEqual(["Move to CLOSE"]);
    await page.getByRole("button", { name: "Move to CLOSE" }).click();
    const dialog = page.getByRole("dialog", { name: "Move to CLOSE?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain("CLOSE is final");
    await shot("close-dialog");
    expect(await lastStatus(complete)).toBe("COMPLETE");
    await dialog.getByRole("button", { name: "Yes, move to close" }).click();
    await page.getByText("Move to CLOSE: done.").waitFor();
    expect(await lastStatus(complete)).toBe("CLOSE");
    // The booking is drawn again after the notice: a final status offers no next step (waited for, then counted).
    expect(await statusButtonsBecome([])).toEqual([]);
    expect(await page.getByRole("group", { name: "Status actions" }).count()).toBe(0);
  }, 60_000);

  test("the vehicle form starts with no rates, requires them, and shows the server's field errors at their fields", async () => {
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Fleet" }).click();
    await page.getByRole("button", { name: "Add vehicle" }).click();
    const form = page.getByRole("form", { name: "Add vehicle" });
    for (const label of ["Minimum rate", "Hourly rate"]) {
      expect(await form.getByLabel(label).inputValue()).toBe("");
      expect(await form.getByLabel(label).getAttribute("required")).not.toBeNull();
    }
    await form.getByLabel("Name").fill("Workflow Sedan");
    await form.getByLabel("Vehicle type").fill("SEDAN");
    // Empty rates: the browser holds the form back (nothing is sent).
    expect(await form.evaluate((f) => (f as HTMLFormElement).checkValidity())).toBe(false);
    await form.getByLabel("Minimum rate").fill("80.125");
    await form.getByLabel("Hourly rate").fill("65.555");
    await form.getByRole("button", { name: "Add", exact: true }).click();
    for (const [label, name] of [
      ["Minimum rate", "minimum_rate"],
      ["Hourly rate", "hourly_rate"],
    ]) {
      const box = form.locator(".field", { has: page.getByLabel(label) });
      await box.locator(".field-error").waitFor();
      expect(await box.locator(".field-error").innerText()).toStartWith(`${name}:`);
      expect(await form.getByLabel(label).getAttribute("aria-invalid")).toBe("true");
    }
    await shot("vehicle-errors");
    await form.getByLabel("Minimum rate").fill("80");
    await form.getByLabel("Hourly rate").fill("65.50");
    await form.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByText("Added Workflow Sedan.").waitFor();
  }, 60_000);

  test("the fleet search lists its results beside the map and says when the FREE plan caps them", async () => {
    const jwt = (await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: PW })).body.token;
    const api = await (await fetch(`${server.base}/api/search/fleet?airports=JFK&radius_km=50&limit=100`, { headers: { authorization: `Bearer ${jwt}` } })).json();
    expect(api.data.limit).toBe(20);
    expect(api.data.total).toBeGreaterThan(20);
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const results = page.getByRole("table", { name: "Search results" });
    await results.waitFor();
    expect(await results.locator("tbody tr").count()).toBe(20);
    expect(await results.locator("tbody tr").first().innerText()).toMatch(/\d+(\.\d+)? km/);
    expect(await page.getByRole("note").innerText()).toBe(`Showing 20 of ${api.data.total} matches — your FREE plan caps search results at 20.`);
    // Beside the map: side by side, the list on the left.
    const map = page.locator("figure.mapbox").filter({ has: page.locator("figcaption", { hasText: /^Search: / }) });
    await map.locator(".leaflet-marker-icon").first().waitFor();
    const [list, drawn] = [await page.locator(".search-results .tablebox").boundingBox(), await map.boundingBox()];
    expect(list!.x + list!.width).toBeLessThanOrEqual(drawn!.x);
    expect(list!.y).toBeLessThan(drawn!.y + drawn!.height);
    await shot("search-capped");
  }, 60_000);

  test("a CO has no Fleet tab; its New trip form sends the pickup's state; Deliveries shows whole booking ids", async () => {
    await signOut();
    await signIn("DEMO-PLATFORM");
    const nav = page.getByRole("navigation", { name: "Console" });
    const tabs = await nav.getByRole("link").allInnerTexts();
    for (const operatorTab of ["Fleet", "Rates", "Availability"]) expect(tabs).not.toContain(operatorTab);
    await page.goto(`${server.base}/console#/fleet`);
    await page.getByRole("table", { name: "Bookings" }).waitFor();
    expect(await page.locator('nav a[aria-current="page"]').innerText()).toBe("Bookings");

    await nav.getByRole("link", { name: "New trip" }).click();
    await page.getByLabel("Pickup kind").selectOption("address");
    await page.getByLabel("Pickup address").fill("1 Beacon St");
    await page.getByLabel("Pickup city").fill("Boston");
    await page.getByLabel("Pickup state").fill("MA");
    await page.getByLabel("Pickup country (2 letters)").fill("US");
    const asked = page.waitForRequest((r) => r.url().endsWith("/api/quotes") && r.method() === "POST");
    await page.getByRole("button", { name: "Get prices" }).click();
    const pickup = (await asked).postDataJSON().locations.pickup;
    expect(pickup).toMatchObject({ locationType: "address", address: "1 Beacon St", city: "Boston", state: "MA", country: "US" });
    await shot("newtrip-state");

    // The requester's Cancel trip asks in the same dialog; going back leaves the booking as it was.
    await page.goto(`${server.base}/console#/bookings/${fresh}`);
    await page.getByRole("button", { name: "Cancel trip" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this trip?" });
    await dialog.getByRole("button", { name: "Go back" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await lastStatus(fresh)).toBe("CONFIRMED");

    await nav.getByRole("link", { name: "Deliveries" }).click();
    const table = page.getByRole("table", { name: "Deliveries" });
    await table.getByRole("link", { name: fresh, exact: true }).first().waitFor({ timeout: 20_000 });
    const ids = await table.locator("a.booking-id").allInnerTexts();
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(UUID);
    await shot("deliveries-ids");
  }, 60_000);
});

describe("a stream the server ends (docs/events.md)", () => {
  test("event: revoked (the token released elsewhere): no reconnect with the dead token, back to the sign-in screen", async () => {
    const streams: string[] = [];
    const watch = (r: Request) => r.url().includes("/api/events") && streams.push(r.url());
    await signOut();
    page.on("request", watch);
    await signIn("DEMO-PLATFORM");
    await page.getByRole("table", { name: "Bookings" }).waitFor();
    for (let i = 0; i < 200 && streams.length === 0; i++) await Bun.sleep(50);
    const jwt = new URL(streams[0]).searchParams.get("access_token")!;
    // The token is released by another client: the stream ends with `event: revoked` within 5 s.
    const released = await fetch(`${server.base}/api/token/release`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } });
    expect(released.status).toBe(200);
    const opened = streams.length;
    await page.getByRole("button", { name: "Sign in" }).waitFor({ timeout: 10_000 });
    await page.getByText(/^The server ended your session .*sign in again\.$/).waitFor();
    await shot("revoked");
    // Past the 5 s a refused stream waits before trying again: no stream was opened again.
    await Bun.sleep(6_000);
    expect(streams.length).toBe(opened);
    page.off("request", watch);
  }, 60_000);
});
