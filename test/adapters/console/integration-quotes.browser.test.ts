import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn as signInAt, startConsole, type ConsoleFixture } from "../../support/browser";
import type { RunningServer } from "../../support/process";

// The Integration page's Quotes settings (docs/fx.md#what-a-network-quote-shows displayCurrency, docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes maxTripKm, policies; docs/operator.md#console: editable
// in the console), in a real Chromium against the demo data: a 400 marks the fields it names, and nothing is saved.
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;

const settings = async () => (await consoleApp.call("ACME-LIMO", "GET", "/api/company/integration")).body.data;

beforeAll(async () => {
  consoleApp = await startConsole({ tokensFor: ["ACME-LIMO"] });
  ({ server, page } = consoleApp);
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("Integration page: quotes settings, in a real browser", () => {
  test("a lower-case currency and a bad tier are refused beside their fields; then EUR, 400 km and new tiers are saved", async () => {
    await signInAt(page, server.base, "ACME-LIMO");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Integration", exact: true }).click();
    const currency = page.getByLabel("Display currency");
    await currency.waitFor();
    const before = await settings();
    expect(await page.getByLabel("Longest trip (km)").inputValue()).toBe(String(before.maxTripKm));
    expect(JSON.parse(await page.getByLabel("Policies (JSON)").inputValue())).toEqual(before.policies);

    await currency.fill("eur");
    await page.getByLabel("Policies (JSON)").fill('{"cancellation":[{"beforeMinutes":120,"percent":150}]}');
    await page.getByRole("button", { name: "Save integration" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "displayCurrency" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("policies.cancellation[0].percent");
    expect(await currency.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Policies (JSON)").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Longest trip (km)").getAttribute("aria-invalid")).toBeNull();
    expect(await settings()).toMatchObject({ displayCurrency: before.displayCurrency, maxTripKm: before.maxTripKm, policies: before.policies });

    const tiers = { cancellation: [{ beforeMinutes: 240, percent: 0 }, { beforeMinutes: 0, percent: 100 }], freeWaitingMinutes: { airport: 45, other: 10 } };
    await currency.fill("EUR");
    await page.getByLabel("Longest trip (km)").fill("400");
    await page.getByLabel("Policies (JSON)").fill(JSON.stringify(tiers));
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByText("Integration saved.").waitFor();
    expect(await currency.getAttribute("aria-invalid")).toBeNull();
    const after = await settings();
    expect(after).toMatchObject({ displayCurrency: "EUR", maxTripKm: 400 });
    expect(after.policies.cancellation).toEqual(tiers.cancellation);
    expect(after.policies.freeWaitingMinutes).toEqual(tiers.freeWaitingMinutes);
    await consoleApp.shot("integration-quotes");
  }, 90_000);
});
