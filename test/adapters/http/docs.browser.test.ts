import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { ARTIFACTS, startBrowser } from "../../support/browser";
import { startServer, tempDir, type RunningServer } from "../../support/process";

let server: RunningServer;
let browser: BrowserContext;

beforeAll(async () => {
  server = await startServer({ DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0" });
  browser = await startBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) expect(await server.stop()).toBe(0);
});

test("the docs UI renders offline under its Content-Security-Policy, with no policy violation, and refuses to be framed", async () => {
  const page = await browser.newPage();
  // Swagger UI builds the page from a large document: under a full suite's load that took over 15 s once.
  page.setDefaultTimeout(60_000);
  const problems: string[] = [];
  // A missing favicon is the browser's own guess, not part of the page.
  page.on("console", (m) => m.type() === "error" && !m.location().url.endsWith("/favicon.ico") && problems.push(`${m.text()} ${m.location().url}`));
  page.on("pageerror", (e) => problems.push(e.message));
  const foreign: string[] = [];
  page.on("request", (r) => !r.url().startsWith(server.base) && !r.url().startsWith("data:") && foreign.push(r.url()));
  const answer = await page.goto(`${server.base}/docs`);
  expect(answer?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(answer?.headers()["x-frame-options"]).toBe("DENY");
  // Swagger UI built the page from the document: the title and the operations are there.
  await page.locator(".swagger-ui .info .title", { hasText: "TripSwitch API" }).waitFor();
  await page.locator(".opblock-summary-path", { hasText: "/api/token" }).first().waitFor();
  expect(await page.locator(".opblock").count()).toBeGreaterThan(20);
  await page.screenshot({ path: join(ARTIFACTS, "docs.png") });
  expect(problems).toEqual([]);
  expect(foreign).toEqual([]);

  // Another page that frames /docs gets an empty frame: the browser blocks it (frame-ancestors 'none').
  const framing = await browser.newPage();
  const blocked: string[] = [];
  framing.on("console", (m) => blocked.push(m.text()));
  await framing.goto(`${server.base}/docs/assets/swagger-ui.css`);
  await framing.setContent(`<iframe id="f" src="${server.base}/docs" width="800" height="600"></iframe>`);
  await framing.waitForTimeout(1000);
  const frame = framing.frames().find((f) => f !== framing.mainFrame());
  const rendered = frame ? await frame.locator(".swagger-ui").count().catch(() => 0) : 0;
  expect(rendered).toBe(0);
  await page.close();
  await framing.close();
}, 120_000);
