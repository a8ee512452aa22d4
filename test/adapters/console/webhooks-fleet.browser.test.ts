import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { ARTIFACTS, openPage, signIn as signInAt, startDemoServer } from "../../support/browser";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { postJson, tempDir, type RunningServer } from "../../support/process";
import { startReceiver } from "../../support/receiver";

const PW = DEMO_LOGIN.pw;
const BULK = 20_000;
const TYPES = ["SEDAN", "SUV", "VAN_MINI", "LIMO", "COACH"];
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
let rx: ReturnType<typeof startReceiver>;
let acmeJwt: string;

const signIn = (uid: string) => signInAt(page, server.base, uid);

const fmt = (x: number) => x.toLocaleString("en-US");
const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
const api = (path: string) => fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${acmeJwt}` } }).then((r) => r.json() as Promise<any>);

beforeAll(async () => {
  // The demo data, and 20,000 more vehicles for ACME-LIMO through the CLI import (two files of 10,000).
  const dir = tempDir();
  const imports: string[][] = [];
  for (let part = 0; part < BULK / 10_000; part++) {
    const rows = Array.from({ length: 10_000 }, (_, k) => {
      const i = part * 10_000 + k;
      return { name: `Bulk ${String(i).padStart(5, "0")}`, type: TYPES[i % TYPES.length], maxPassengers: 1 + ((i * 7) % 40), lat: 40.6 + (i % 100) / 1000, lon: -73.8 + (i % 37) / 1000, airports: ["JFK"], minimum_rate: 80, hourly_rate: 70, active: i % 9 !== 0 };
    });
    const file = join(dir, `bulk-${part}.json`);
    writeFileSync(file, JSON.stringify(rows));
    imports.push(["fleet", "import", "ACME-LIMO", file]);
  }
  server = await startDemoServer({}, [["company", "set-plan", "ACME-LIMO", "ENTERPRISE"], ...imports], 60_000);
  rx = startReceiver((r) => (rx.state as { fail?: boolean }).fail ? new Response("receiver down for maintenance", { status: 503 }) : Response.json({ received: r.json?.type }));
  acmeJwt = (await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: PW })).body.token;
  const jwt = (await postJson(`${server.base}/api/token`, { uid: "DEMO-PLATFORM", pw: PW })).body.token;
  const put = await fetch(`${server.base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify({ webhookUrl: `${rx.url}/hooks` }) });
  expect(put.status).toBe(200);
  ({ browser, page } = await openPage(20_000));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  rx?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

describe("the console's fleet at scale and webhooks you can try, in a real browser", () => {
  test("a fleet of 20,000+ entries pages and sorts on the server; map and search are a tab away", async () => {
    const total: number = (await api("/api/fleet?limit=1")).data.total;
    expect(total).toBeGreaterThanOrEqual(BULK);
    await signIn("ACME-LIMO");
    const table = page.getByRole("table", { name: "Fleet" });
    await table.waitFor();
    const caption = table.locator("caption");
    expect(await caption.innerText()).toBe(`1–50 of ${fmt(total)} entries`);
    expect(await table.locator("tbody tr").count()).toBe(50);
    // The tabs sit above the table: reachable without scrolling.
    for (const name of ["Table", "Map", "Search"]) {
      const box = (await page.getByRole("tab", { name }).boundingBox())!;
      expect(box.y + box.height).toBeLessThan(900);
    }
    await shot("fleet-20k");

    await page.getByRole("button", { name: "Last page" }).click();
    const lastFirst = Math.floor((total - 1) / 50) * 50 + 1;
    await page.locator("caption", { hasText: `${fmt(lastFirst)}–${fmt(total)} of ${fmt(total)} entries` }).waitFor();
    const lastName = (await api(`/api/fleet?sort=name&limit=1&offset=${total - 1}`)).data.items[0].name;
    expect(await table.locator("tbody tr").last().locator("td").first().innerText()).toStartWith(lastName);

    // Sorting by passengers, largest first: the server's order, from the first page.
    await page.getByRole("button", { name: "Passengers" }).click();
    await page.locator("caption", { hasText: `1–50 of ${fmt(total)} entries` }).waitFor();
    await page.getByRole("button", { name: "Passengers ▲" }).click();
    await page.locator("th[aria-sort=descending]", { hasText: "Passengers" }).waitFor();
    const largest = (await api("/api/fleet?sort=maxPassengers&order=desc&limit=50")).data.items;
    const expected = largest.map((e: any) => e.slug);
    await page.waitForFunction((slug) => document.querySelector("table[aria-label=Fleet] tbody tr td small")?.textContent === slug, expected[0]);
    const shown = await table.locator("tbody tr td:first-child small").allInnerTexts();
    expect(shown).toEqual(expected);
    expect(largest[0].maxPassengers).toBeGreaterThanOrEqual(40);
    expect(Number(await table.locator("tbody tr").first().locator("td").nth(2).innerText())).toBe(largest[0].maxPassengers);
    await shot("fleet-20k-sorted");

    // Filters go to the server too: one type, inactive, a name.
    await page.getByLabel("Type").fill("coach");
    await page.getByLabel("Type").press("Enter");
    await page.getByLabel("Status").selectOption("false");
    const matching: number = (await api("/api/fleet?type=COACH&active=false&limit=1")).data.total;
    await page.locator("caption", { hasText: `of ${fmt(matching)} matching entries` }).waitFor();
    expect(await table.locator("tbody tr td:nth-child(2)").allInnerTexts()).toEqual(Array(Math.min(50, matching)).fill("COACH"));
    await page.getByLabel("Status").selectOption("");
    await page.getByLabel("Type").fill("");
    await page.getByLabel("Type").press("Enter");
    await page.getByLabel("Filter").fill("Bulk 01234");
    await page.locator("caption", { hasText: "1–1 of 1 matching entry" }).waitFor();
    await page.getByRole("tab", { name: "Map" }).click();
    await page.locator("figcaption", { hasText: "Your fleet: 1 located entries" }).waitFor();
    await shot("fleet-20k-map");
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByRole("form", { name: "Fleet search" }).waitFor();
  }, 120_000);

  test("a test webhook sent from the console: the receiver gets the signed ping, the page shows the request and the answer", async () => {
    await signIn("DEMO-PLATFORM");
    await page.getByRole("link", { name: "Deliveries" }).click();
    await page.getByRole("table", { name: "Deliveries" }).waitFor();
    const before = rx.received.length;
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText("Test event delivered (HTTP 200).").waitFor();
    const [got] = (await rx.waitFor(before + 1)).slice(before);
    expect(got.json.type).toBe("ping");
    const detail = page.getByRole("region", { name: /^Delivery \d+: ping$/ });
    await detail.waitFor();
    const headers = await detail.getByLabel("Request headers").innerText();
    expect(headers).toContain(`x-tripswitch-signature: ${got.headers["x-tripswitch-signature"]}`);
    expect(headers).toContain(`x-tripswitch-event-id: ${got.json.eventId}`);
    expect(await detail.getByLabel("Request body").innerText()).toContain(`"eventId": "${got.json.eventId}"`);
    expect(await detail.getByLabel("Answer body").innerText()).toBe('{"received":"ping"}');
    await detail.getByRole("heading", { name: /^Answer: HTTP 200$/ }).waitFor();
    await detail.getByRole("heading", { name: /^Attempt 1 · .+ · \d+ ms$/ }).waitFor();
    await page.getByRole("table", { name: "Deliveries" }).getByText("test event").first().waitFor();
    await shot("deliveries-test-event");

    // A failing receiver: the answer's status and body, and when the delivery is tried again.
    (rx.state as { fail?: boolean }).fail = true;
    await page.getByRole("button", { name: "Close details" }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText(/^Test event not delivered yet: .*HTTP 503/).waitFor();
    const failing = page.getByRole("region", { name: /^Delivery \d+: ping$/ });
    await failing.getByRole("heading", { name: "Answer: HTTP 503" }).first().waitFor();
    expect(await failing.getByLabel("Answer body").first().innerText()).toBe("receiver down for maintenance");
    expect(await failing.getByTestId("next-retry").innerText()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((in \d+ s|due now)\)$/);
    await shot("deliveries-failing");
    (rx.state as { fail?: boolean }).fail = false;
  }, 60_000);
});
