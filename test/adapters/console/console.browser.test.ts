import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { ARTIFACTS, openPage, signIn as signInAt, startDemoServer } from "../../support/browser";
import { postJson, registerCompany, type RunningServer } from "../../support/process";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { startReceiver } from "../../support/receiver";
import { regularTrip } from "../../support/trips";

const PW = DEMO_LOGIN.pw;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
let rx: ReturnType<typeof startReceiver>;
let transactionId: string;

const signIn = (uid: string, pw?: string) => signInAt(page, server.base, uid, { pw });
/** An operator (IO) with no vehicles yet: the fleet tests fill its fleet. (DEMO-PLATFORM is a CO: no Fleet.) */
const OPERATOR = "CONSOLE-OPS";
const OPERATOR_PW = "correct horse battery staple";

async function signOut() {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
}

/** The markers of `kind` a map holds: its single pins and the counts its clusters show (once any is drawn). */
async function markersOn(figure: Locator, kind: string) {
  await figure.locator(".leaflet-marker-icon").first().waitFor();
  const groups = await figure.locator(".marker-cluster").allInnerTexts();
  return groups.reduce((n, t) => n + Number(t.trim()), 0) + (await figure.locator(`.leaflet-marker-icon.pin-${kind}`).count());
}

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  // The demo data, with ACME-LIMO answering by hand (not a sandbox), so the test moves its booking itself.
  server = await startDemoServer({}, [["company", "set-sandbox", "ACME-LIMO", "off"]]);
  rx = startReceiver();
  const jwt = (await postJson(`${server.base}/api/token`, { uid: "DEMO-PLATFORM", pw: PW })).body.token;
  const put = await fetch(`${server.base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify({ webhookUrl: `${rx.url}/hooks` }) });
  expect(put.status).toBe(200);
  const platform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "DEMO-PLATFORM", pw: PW })).body;
  const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, regularTrip("DEMO-PLATFORM", "ACME-LIMO", {}, { requesterResNo: "CONSOLE-1" }), { token: platform });
  expect(sent.status).toBe(200);
  transactionId = sent.body.transactionId;
  const acme = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: PW })).body;
  const confirmed = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, { status: "CONFIRMED", providerResNo: "ACME-77" }, { token: acme });
  expect(confirmed.status).toBe(200);
  await rx.waitFor(2);
  // A booking with a sandbox operator, which its simulated dispatcher moves along by itself.
  const sandboxed = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, regularTrip("DEMO-PLATFORM", "BLUE-SKY-CARS", {}, { requesterResNo: "CONSOLE-SBX" }), { token: platform });
  expect(sandboxed.status).toBe(200);
  await registerCompany(server, OPERATOR, "IO");
  ({ browser, page } = await openPage(15_000));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  rx?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

describe("the console in a real browser", () => {
  test("sign in (an operator without vehicles lands on Bookings); the fleet is a table with a map; a fleet search draws its matches", async () => {
    await signIn(OPERATOR, OPERATOR_PW);
    // A company without vehicles lands on its bookings (none yet); its fleet is one click away.
    await page.getByText("No bookings yet.").waitFor();
    await page.getByRole("link", { name: "Fleet" }).click();
    await page.getByRole("table", { name: "Fleet" }).waitFor();
    await page.getByRole("tab", { name: "Map" }).click();
    await page.getByRole("region", { name: "Map" }).first().waitFor();
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText(/^Search: \d+ matches/).waitFor();
    expect(await markersOn(page.locator("figure.mapbox").filter({ has: page.locator("figcaption", { hasText: /^Search: / }) }), "hit")).toBeGreaterThan(10);
    await shot("fleet");
  }, 60_000);

  test("a CSV with a bad row imports nothing and names the line; a good one adds its rows to the table", async () => {
    const header = "name,type,maxPassengers,maxLuggage,lat,lon,airports,minimum_rate,hourly_rate";
    await page.getByRole("tab", { name: "Table" }).click();
    const file = page.getByLabel("Fleet file");
    await file.setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(`${header}\nConsole Sedan,SEDAN,3,2,40.64,-73.78,JFK,80,70\nConsole Broken,SUV,zero,2,40.64,-73.78,JFK,80,70\n`) });
    await page.getByRole("button", { name: "Import file" }).click();
    const errors = page.getByRole("table", { name: "Import errors" });
    await errors.waitFor();
    expect(await errors.getByRole("row").nth(1).innerText()).toMatch(/^3\s+maxPassengers/);
    await expect(page.getByRole("cell", { name: /^Console Sedan/ }).count()).resolves.toBe(0);

    await file.setInputFiles({ name: "fleet.csv", mimeType: "text/csv", buffer: Buffer.from(`${header}\nConsole Sedan,SEDAN,3,2,40.64,-73.78,JFK,80,70\nConsole Van,VAN_MINI,7,6,40.77,-73.87,LGA JFK,120,95\n`) });
    await page.getByRole("button", { name: "Import file" }).click();
    await page.getByText("Imported 2 entries from fleet.csv.").waitFor();
    const table = page.getByRole("table", { name: "Fleet" });
    await table.getByRole("cell", { name: /^Console Van/ }).waitFor();
    await expect(table.getByRole("cell", { name: /^Console Sedan/ }).count()).resolves.toBe(1);
    expect(await page.getByRole("progressbar", { name: "Import progress" }).getAttribute("value")).toBe("1");
    await page.getByRole("tab", { name: "Map" }).click();
    await page.locator("figcaption", { hasText: "Your fleet: 2 located entries" }).waitFor();
    expect(await markersOn(page.locator("figure.mapbox").first(), "fleet")).toBe(2);
    await shot("fleet-imported");
  }, 60_000);

  test("the provider opens the booking and moves it CONFIRMED → ASSIGNED (the only next steps offered); the timeline grows", async () => {
    await signOut();
    await signIn("ACME-LIMO");
    await page.getByRole("link", { name: "Bookings" }).click();
    const list = page.getByRole("table", { name: "Bookings" });
    await list.waitFor();
    await shot("bookings");
    await list.getByRole("link", { name: "Open booking CONSOLE-1" }).click();
    const timeline = page.getByRole("list", { name: "Timeline" });
    await timeline.waitFor();
    const before = await timeline.getByRole("listitem").count();
    expect(await page.getByText("CONFIRMED", { exact: true }).count()).toBeGreaterThan(0);
    // Only legal next states are offered: nothing backwards, no CANCEL for the provider.
    await expect(page.getByRole("button", { name: "Move to PENDING" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Move to CANCEL" }).count()).resolves.toBe(0);
    // One step at a time: no forward skip (EN_ROUTE, CLOSE, …) from here.
    expect(await page.getByRole("group", { name: "Status actions" }).getByRole("button").allInnerTexts()).toEqual(["Move to ACKNOWLEDGED", "Move to ASSIGNED"]);
    await page.getByLabel("Chauffeur first name").fill("Grace");
    await page.getByLabel("Chauffeur last name").fill("Hopper");
    await page.getByRole("button", { name: "Move to ASSIGNED" }).click();
    await page.getByText("status CONFIRMED → ASSIGNED").waitFor();
    expect(await page.getByRole("list", { name: "Timeline" }).getByRole("listitem").count()).toBeGreaterThan(before);
    expect(await page.getByText("Grace Hopper").count()).toBe(1);
    await shot("booking");
    const stored = await (await fetch(`${server.base}/Platform.svc/getReservationByTransactionId/${transactionId}/V1`, { headers: { token: (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: PW })).body } })).json();
    expect(JSON.stringify(stored)).toContain('"lastStatus":"ASSIGNED"');
  }, 60_000);

  test("the requester replays a webhook delivery: the receiver gets the same event again", async () => {
    await signOut();
    await signIn("DEMO-PLATFORM");
    await page.getByRole("link", { name: "Deliveries" }).click();
    const table = page.getByRole("table", { name: "Deliveries" });
    await table.waitFor();
    await shot("deliveries");
    const count = rx.received.length;
    // The oldest (CONSOLE-1's): the list is newest first.
    const replay = table.getByRole("button", { name: /^Replay booking\.created / }).last();
    const eventId = (await replay.getAttribute("aria-label"))!.split(" ").pop();
    await replay.click();
    await page.getByText(/^Replaying booking\.created/).waitFor();
    const got = await rx.waitFor(count + 1);
    expect(got.slice(count).some((r) => r.json.eventId === eventId && r.json.type === "booking.created")).toBe(true);
  }, 60_000);

  test("the requester watches a sandbox operator's booking move along by itself", async () => {
    await page.getByRole("link", { name: "Bookings" }).click();
    await page.getByRole("table", { name: "Bookings" }).getByRole("link", { name: "Open booking CONSOLE-SBX" }).click();
    await page.getByRole("list", { name: "Timeline" }).waitFor();
    // Confirmed within seconds and assigned soon after; the page follows without a click.
    await page.getByText("status CONFIRMED → ASSIGNED").waitFor({ timeout: 25_000 });
    expect(await page.getByText("Sandy Box").count()).toBe(1);
    await shot("booking-sandbox");
  }, 60_000);

  test("integration and partners pages show the company's settings and partnerships", async () => {
    await page.getByRole("link", { name: "Integration" }).click();
    await expect(page.getByLabel("Webhook URL").inputValue()).resolves.toBe(`${rx.url}/hooks`);
    // The test receiver echoed the URL's challenge.
    await page.getByText("Webhook URL verified.").waitFor();
    await shot("integration");
    await page.getByRole("link", { name: "Partners" }).click();
    const partners = page.getByRole("table", { name: "Partners" });
    await partners.getByRole("cell", { name: /^Acme Limousine/ }).waitFor();
    await expect(partners.getByRole("cell", { name: /^Blue Sky Cars/ }).count()).resolves.toBe(1);
    await shot("partners");
  }, 60_000);

  test("Sign out ends both tokens on the server: the core JWT and the platform token are 401 afterwards", async () => {
    const seen = { jwt: "", platform: "" };
    const watch = (r: import("playwright-core").Request) => {
      const bearer = /^Bearer (\S+)$/.exec(r.headers()["authorization"] ?? "");
      if (bearer) seen.jwt = bearer[1];
      if (r.headers()["token"]) seen.platform = r.headers()["token"];
    };
    page.on("request", watch);
    await signOut();
    await signIn("DEMO-PLATFORM");
    // The bookings page reads with the core token; a status action would use the platform token (known once signed in).
    await page.getByRole("link", { name: "Bookings" }).click();
    await page.getByRole("table", { name: "Bookings" }).waitFor();
    await page.evaluate(`import("/console/assets/api.js").then((api) => api.platform("GET", "/api/reservation/${transactionId}").catch(() => null))`);
    expect(seen.jwt).not.toBe("");
    expect(seen.platform).not.toBe("");
    const coreStatus = () => fetch(`${server.base}/api/company/integration`, { headers: { authorization: `Bearer ${seen.jwt}` } }).then((r) => r.status);
    const platformStatus = () => fetch(`${server.base}/api/reservation/${transactionId}`, { headers: { token: seen.platform } }).then((r) => r.status);
    expect(await coreStatus()).toBe(200);
    expect(await platformStatus()).toBe(200);
    const ended = page.waitForResponse((r) => r.url().endsWith("/api/token/release"));
    await signOut();
    expect((await ended).status()).toBe(200);
    page.off("request", watch);
    expect(await coreStatus()).toBe(401);
    expect(await platformStatus()).toBe(401);
  }, 60_000);
});
