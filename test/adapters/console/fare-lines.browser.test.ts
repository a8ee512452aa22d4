import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page, Request } from "playwright-core";
import { signIn, startConsole, type ConsoleFixture } from "../../support/browser";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { postJson, type RunningServer } from "../../support/process";

// The price as its lines and the cancel fee's reason in the console (docs/terms.md#the-price-is-the-sum-of-its-lines,
// docs/terms.md#the-cancellation-fee), in a real Chromium against the demo data: the booking page lists the booked
// line with its breakdown and the lines the provider adds after it, the total their sum, and says what cancelling
// costs now and why — free while the provider has not accepted — never showing a literal null. New trip asks extras
// (docs/rates.md#extras): each option prices them, and the booking keeps them in its breakdown.
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let acmePlatform: string;

/** The wall-clock time `minutes` from now at JFK, as trips send it (its local time). */
function jfkTimeIn(minutes: number): string {
  const local = new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York", dateStyle: "short", timeStyle: "medium" });
  return local.format(new Date(Date.now() + minutes * 60_000)).replace(" ", "T");
}

beforeAll(async () => {
  // ACME-LIMO answers by hand (not a sandbox): its requests wait for acceptance.
  consoleApp = await startConsole({ commands: [["company", "set-sandbox", "ACME-LIMO", "off"]], tokensFor: ["DEMO-PLATFORM"], shotPrefix: "fare-lines-" });
  ({ server, page, call } = consoleApp);
  acmePlatform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: DEMO_LOGIN.pw })).body;
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("the booking page's price and cancel fee, in a real browser", () => {
  test("free before acceptance; then the lines the provider adds, their sum, and the fee on the booked line only", async () => {
    // Picked up in 45 minutes: past the default free hour, so an accepted booking pays its whole booked fare.
    const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", {
      passengerCount: "2",
      providers: ["ACME-LIMO"],
      locations: { pickup: { locationType: "airport", address: "JFK", time: jfkTimeIn(45) }, dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" } },
    });
    expect(quote.status).toBe(200);
    expect(quote.body.data.warnings.map((w: { code: string }) => w.code)).toContain("CANCELLATION_FEE_APPLIES");
    const option = quote.body.data.options[0];
    const booked = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
      quoteOptionId: option.quoteOptionId,
      requesterResNo: `FARE-LINES-${Date.now()}`,
      passengers: [{ firstName: "Ada", lastName: "King" }],
    });
    expect(booked.status).toBe(200);
    const id = booked.body.transactionId;

    await signIn(page, server.base, "DEMO-PLATFORM", { hash: `#/bookings/${id}` });
    const now = page.locator(".cancel-now");
    const free = "free: the provider has not accepted the booking yet";
    await page.locator('.cancel-now[data-reason="NOT_ACCEPTED"]', { hasText: free }).waitFor({ timeout: 15_000 }).catch(() => undefined);
    expect(await now.innerText()).toBe(free);
    const lines = page.getByRole("table", { name: "Fee lines" });
    expect(await lines.locator("tbody tr").count()).toBe(1);
    expect(await lines.locator("tbody tr").first().innerText()).toContain("booked");
    expect(await page.getByRole("list", { name: /^Price breakdown of / }).count()).toBe(1);
    expect(await lines.locator(".fee-total").innerText()).toBe(`${option.fee} ${option.currency}`);
    expect(await page.locator("main").innerText()).not.toContain("null");

    // ACME-LIMO accepts and adds a toll after the booked line: the total is their sum.
    const tollUpdate = {
      status: "CONFIRMED",
      fees: [{ code: option.code, fee: option.fee }, { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "6.50", currency: option.currency }],
    };
    const accepted = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, tollUpdate, { token: acmePlatform });
    expect(accepted.status).toBe(200);
    const read = (await call("DEMO-PLATFORM", "GET", `/api/reservation/${id}`)).body.data.tripPacket;
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.locator('.cancel-now[data-reason="LATE_CANCELLATION"]').waitFor();
    expect(await lines.locator("tbody tr").count()).toBe(2);
    expect(await lines.locator("tbody tr.fee-added").innerText()).toContain("added by the provider");
    expect(await lines.locator(".fee-total").innerText()).toBe(`${read.totalAmount} ${option.currency}`);
    // The fee is the booked fare's percent, not the toll's.
    const fee = (await call("DEMO-PLATFORM", "GET", `/api/reservation/${id}/cancel-fee`)).body.data;
    expect(fee).toMatchObject({ reason: "LATE_CANCELLATION", fare: option.fee });
    // The page redraws as live events come in (the fee shows "…" while it is read again): wait for the text itself.
    const said = `${fee.fee} ${fee.currency} (${fee.percent}% of the quoted fare ${option.fee} ${option.currency}; lines added later are not counted)`;
    await page.locator(".cancel-now", { hasText: said }).waitFor({ timeout: 15_000 }).catch(() => undefined);
    expect(await now.innerText()).toBe(said);
    expect(await page.locator("main").innerText()).not.toContain("null");
    await consoleApp.shot("booking");

    // The cancel dialog says the same before anything is sent.
    await page.getByRole("button", { name: "Cancel trip" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this trip?" });
    expect(await dialog.innerText()).toContain(`costs ${fee.fee} ${fee.currency} (${fee.percent}% of the fare`);
    await dialog.getByRole("button", { name: "Go back" }).click();
  }, 120_000);

  test("New trip asks extras: the quote prices them on every option, the booking's breakdown keeps them; an extra no card offers enough of says why", async () => {
    await signIn(page, server.base, "DEMO-PLATFORM");
    await consoleApp.nav("New trip");
    await page.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await page.getByLabel("Drop-off kind").selectOption("airport");
    await page.getByLabel("Drop-off airport (IATA code)").fill("LGA");
    await page.getByLabel("Child seats").fill("2");
    await page.getByLabel("Meet & greet with name sign").check();
    const sent = page.waitForRequest((r: Request) => r.url().endsWith("/api/quotes") && r.method() === "POST");
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/quotes") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Get prices" }).click();
    expect((await sent).postDataJSON().extras).toEqual([
      { code: "CHILD_SEAT", quantity: 2 },
      { code: "MEET_AND_GREET", quantity: 1 },
    ]);
    const quote = ((await (await answered).json()) as any).data;
    expect(quote.options.length).toBeGreaterThan(0);
    for (const o of quote.options) expect(o.breakdown.filter((l: { kind: string }) => l.kind === "EXTRA").map((l: { name: string }) => l.name)).toEqual(["Child seat × 2", "Meet & greet with name sign"]);
    // ACME-LIMO's option (it answers by hand here), chosen and booked: its breakdown shows the seats and the greeting.
    const acme = quote.options.find((o: any) => o.provider.netid === "ACME-LIMO");
    expect(acme.breakdown).toEqual(expect.arrayContaining([{ kind: "EXTRA", code: "CHILD_SEAT", name: "Child seat × 2", amount: "24.00" }]));
    await page.getByRole("radio", { name: `Choose ${acme.name} with ${acme.provider.name}` }).first().check();
    const summary = page.getByRole("region", { name: "The booking you will make" });
    expect(await summary.innerText()).toContain("Child seat × 2");
    await page.getByLabel("Passenger first name").fill("Ada");
    await page.getByLabel("Passenger last name").fill("King");
    await summary.getByRole("button", { name: "Book this option" }).click();
    await page.waitForURL(/#\/bookings\/[0-9a-f-]+$/);
    // The page redraws as the booking's events arrive: wait for the words, not only the first answer.
    await page.locator('.cancel-now[data-reason="NOT_ACCEPTED"]', { hasText: "free: the provider has not accepted the booking yet" }).waitFor();
    const lines = page.getByRole("table", { name: "Fee lines" });
    const breakdown = (await lines.getByRole("list", { name: /^Price breakdown of / }).locator("li").allInnerTexts()).map((l) => l.replace(/\s+/g, " ").trim());
    expect(breakdown).toEqual(acme.breakdown.map((l: { name: string; amount: string }) => `${l.name} ${l.amount}`));
    expect(await lines.locator(".fee-total").innerText()).toBe(`${acme.fee} ${acme.currency}`);
    expect(await page.locator("main").innerText()).not.toContain("null");
    await consoleApp.shot("extras-booking");

    // More extra waiting than any card offers: no prices, and the warning says the cause.
    await consoleApp.nav("New trip");
    await page.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await page.getByLabel("Drop-off kind").selectOption("airport");
    await page.getByLabel("Drop-off airport (IATA code)").fill("LGA");
    await page.getByLabel("Extra waiting (15-minute blocks)").fill("13");
    await page.getByRole("button", { name: "Get prices" }).click();
    const options = page.getByRole("region", { name: "No prices" });
    await options.waitFor();
    expect(await options.innerText()).toContain("offers at most 12 EXTRA_WAIT_15 (13 asked)");
    expect(await options.innerText()).toContain("No operator that serves this pickup offers the extras asked");
  }, 120_000);
});
