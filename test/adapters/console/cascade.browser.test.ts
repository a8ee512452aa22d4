import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn, startConsole, type ConsoleFixture } from "../../support/browser";
import { postJson } from "../../support/process";
import { DEMO_LOGIN } from "../../../src/demo/seed";

// docs/terms.md#who-sees-what in the console, in a real Chromium against the demo data: Hudson Car Service (the demo
// operator that answers by hand) never sees the requester's fallback; a request it declines, or that the cascade takes
// away, leaves its lists live and shows under Lost offers, read-only.
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let shot: ConsoleFixture["shot"];
let base = "";
let day = 20;

/** Hudson's sedan of a network quote at JFK, booked by the demo platform with a fallback up to 150.00. */
async function bookHudson(resNo: string): Promise<string> {
  const time = `${new Date(Date.now() + ++day * 86_400_000).toISOString().slice(0, 10)}T09:00:00`;
  const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", {
    passengerCount: "2",
    providers: ["HUDSON-CARS", "ACME-LIMO"],
    locations: { pickup: { locationType: "airport", address: "JFK", time }, dropOff: { address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" } },
  });
  expect(quote.status).toBe(200);
  const option = quote.body.data.options.find((o: { provider: { netid: string } }) => o.provider.netid === "HUDSON-CARS");
  const res = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
    quoteOptionId: option.quoteOptionId,
    requesterResNo: resNo,
    passengers: [{ firstName: "Ada", lastName: "King" }],
    fallback: { maxFee: "150.00" },
  });
  expect(res.status).toBe(200);
  return res.body.transactionId;
}

beforeAll(async () => {
  // The offer watch looks often, so a declined request moves within a second.
  consoleApp = await startConsole({ env: { OFFER_WATCH_MS: "200" }, tokensFor: ["HUDSON-CARS", "DEMO-PLATFORM"], shotPrefix: "cascade-" });
  ({ page, call, shot } = consoleApp);
  base = consoleApp.server.base;
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("the cascade in a provider's console, in a real browser", () => {
  test("the provider's booking page shows no fallback; Decline moves the booking on and the page turns read-only with why", async () => {
    const id = await bookHudson("CASCADE-UI-1");
    await signIn(page, base, "HUDSON-CARS", { hash: `#/bookings/${id}` });
    await page.getByRole("button", { name: "Decline" }).waitFor();
    expect(await page.locator("main").innerText()).not.toContain("150.00");
    expect(await page.getByText("Fallback").count()).toBe(0);
    await page.getByRole("button", { name: "Decline" }).click();
    await page.getByRole("dialog").getByRole("button", { name: /^Yes/ }).click();
    await page.locator(".offer-ended").waitFor({ timeout: 15_000 });
    expect(await page.locator(".offer-ended").innerText()).toContain("PROVIDER_REJECTED");
    expect(await page.getByRole("button", { name: "Decline" }).count()).toBe(0);
    expect(await page.locator("main").innerText()).not.toContain("ACME-LIMO");
    expect((await call("DEMO-PLATFORM", "GET", `/api/reservation/${id}`)).body.data.offers.map((o: { provider: string }) => o.provider)).toEqual([
      "HUDSON-CARS",
      "ACME-LIMO",
    ]);
    await shot("declined");
  }, 60_000);

  test("a request withdrawn from the provider leaves its Bookings list live and appears under Lost offers", async () => {
    const id = await bookHudson("CASCADE-UI-2");
    await page.goto(`${base}/console#/bookings`);
    const awaiting = page.getByRole("table", { name: "Awaiting your acceptance" });
    await awaiting.locator(`tr[data-awaiting="${id}"]`).waitFor();
    // Hudson's dispatch system declines it through the API while the list is open.
    const platform = (await postJson(`${base}/Platform.svc/getToken2`, { uid: "HUDSON-CARS", pw: DEMO_LOGIN.pw })).body;
    const reject = await postJson(`${base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, { status: "REJECT" }, { token: platform });
    expect(reject.status).toBe(200);
    await page.locator(`tr[data-awaiting="${id}"]`).waitFor({ state: "detached", timeout: 15_000 });
    const lost = page.getByRole("table", { name: "Lost offers" });
    await lost.locator(`tr[data-lost="${id}"]`).waitFor({ timeout: 15_000 });
    expect(await lost.locator(`tr[data-lost="${id}"]`).innerText()).toContain("CASCADE-UI-2");
    expect(await lost.locator(`tr[data-lost="${id}"]`).innerText()).toContain("PROVIDER_REJECTED");
    await shot("lost");
  }, 60_000);
});
