import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn as signInAt, startConsole, type ConsoleFixture } from "../../support/browser";
import type { RunningServer } from "../../support/process";

// The console's rate card editor, a vehicle's blackouts and schedule, and the quote's breakdown in New trip, in a
// real Chromium against the demo data (the demo operators price by rate cards: src/demo/rates.ts).
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let nav: ConsoleFixture["nav"];
let shot: ConsoleFixture["shot"];
/** A UTC day `days` from now, "YYYY-MM-DD". */
const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  // ACME-LIMO answers no trips by itself here: a booking made from a quote stays live and holds its vehicle.
  consoleApp = await startConsole({ commands: [["company", "set-sandbox", "ACME-LIMO", "off"]], tokensFor: ["ACME-LIMO", "DEMO-PLATFORM"] });
  ({ server, page, call, nav, shot } = consoleApp);
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("rates and availability in the console, in a real browser", () => {
  test("the Rates page shows the demo card; an edited price and a new extra are saved", async () => {
    await signInAt(page, server.base, "ACME-LIMO");
    await nav("Rates");
    const routes = page.getByRole("table", { name: "Routes between zones" });
    await routes.waitFor();
    const card = (await call("ACME-LIMO", "GET", "/api/company/rates")).body.data;
    expect(await routes.locator("tbody tr").count()).toBe(card.routes.length);
    expect(await page.getByLabel("Route 1 id").inputValue()).toBe(card.routes[0].id);
    expect(await page.getByLabel("Route 1 from zone kind").inputValue()).toBe("airport");
    expect(await page.getByLabel("Route 1 from airport").inputValue()).toBe("JFK");
    expect(await page.getByLabel("Route 1 to radius km").inputValue()).toBe("8");
    expect(await page.getByLabel("Currency").inputValue()).toBe("USD");
    await shot("rates");

    await page.getByLabel("Route 1 price").fill("99.5");
    await page.getByLabel("Minimum fare").fill("70");
    await page.getByRole("button", { name: "Add extra" }).click();
    const n = card.extras.length + 1;
    await page.getByLabel(`Extra ${n} code`).fill("wifi_hotspot");
    await page.getByLabel(`Extra ${n} name`).fill("Wi-Fi hotspot");
    await page.getByLabel(`Extra ${n} price`).fill("5");
    await page.getByRole("button", { name: "Save rate card" }).click();
    await page.getByText("Rate card saved.").waitFor();
    const saved = (await call("ACME-LIMO", "GET", "/api/company/rates")).body.data;
    expect(saved.routes[0]).toEqual({ ...card.routes[0], price: "99.50" });
    expect(saved.minimumFare).toBe("70.00");
    expect(saved.extras.at(-1)).toEqual({ code: "WIFI_HOTSPOT", name: "Wi-Fi hotspot", price: "5.00" });
    expect(saved.routes.slice(1)).toEqual(card.routes.slice(1));
    expect(saved.surcharges).toEqual(card.surcharges);
    // Acme's distance rates come in bands (upToKm): the form keeps each band.
    expect(card.distance.some((d: { upToKm?: number }) => d.upToKm !== undefined)).toBe(true);
    expect(saved.distance).toEqual(card.distance);
    // The form shows the card as the server normalised it.
    expect(await page.getByLabel("Route 1 price").inputValue()).toBe("99.50");
  }, 90_000);

  test("a bad card shows each failing field beside its control, and nothing is saved", async () => {
    const before = (await call("ACME-LIMO", "GET", "/api/company/rates")).body.data;
    await page.getByLabel("Route 1 to radius km").fill("0");
    await page.getByLabel("Extra 1 price").fill("twelve");
    await page.getByLabel("Surcharge 3 from").fill("25:00");
    await page.getByRole("button", { name: "Save rate card" }).click();
    // The server's answer marks the fields (wait for it: the click only sends the card).
    await page.getByText("nothing was saved").waitFor();
    expect(await page.getByLabel("Route 1 to radius km").getAttribute("aria-invalid")).toBe("true");
    const cellError = (label: string) => page.getByLabel(label).locator("xpath=ancestor::td[1]").locator(".field-error");
    expect(await cellError("Route 1 to radius km").innerText()).toContain("routes[0].to.radiusKm");
    expect(await cellError("Extra 1 price").innerText()).toContain("extras[0].price");
    expect(await cellError("Surcharge 3 from").innerText()).toContain("surcharges[2].from");
    expect(await page.getByLabel("Extra 1 price").getAttribute("aria-invalid")).toBe("true");
    await page.getByText("nothing was saved").waitFor();
    await shot("rates-field-errors");
    const after = (await call("ACME-LIMO", "GET", "/api/company/rates")).body.data;
    expect(after).toEqual(before);

    // The JSON fallback holds the same card; a bad one pasted there lists its errors, and nothing is saved.
    await page.getByText("Edit as JSON").click();
    const json = page.getByLabel("Rate card JSON");
    // The box is filled once the card is read: wait for it (bounded).
    let text = "";
    for (let i = 0; i < 100 && text === ""; i++) if ((text = await json.inputValue()) === "") await Bun.sleep(20);
    expect(JSON.parse(text).routes[0].id).toBe(before.routes[0].id);
    await json.fill(JSON.stringify({ currency: "XXQ", routes: [{ id: "r", from: { airport: "JFK" }, to: { polygon: [[0, 0]] }, price: "1" }] }));
    await page.getByRole("button", { name: "Save JSON" }).click();
    await page.getByText("routes[0].to.polygon:").first().waitFor();
    await page.getByText("currency:").first().waitFor();
    expect((await call("ACME-LIMO", "GET", "/api/company/rates")).body.data).toEqual(before);
  }, 90_000);

  test("a blackout added on a vehicle's Availability page is listed and drawn on its schedule; a bad one names its field", async () => {
    const slug = (await call("ACME-LIMO", "GET", "/api/fleet?limit=1&sort=name&order=asc")).body.data.items[0].slug;
    await nav("Availability");
    await page.getByRole("heading", { name: "Blackouts" }).waitFor();
    expect(await page.getByLabel("Vehicle", { exact: true }).inputValue()).toBe(slug);
    expect(page.url()).toEndWith(`#/availability/${slug}`);
    // Each fleet row leads to its vehicle's availability.
    await nav("Fleet");
    const second = (await call("ACME-LIMO", "GET", "/api/fleet?limit=1&offset=1&sort=name&order=asc")).body.data.items[0];
    const slugCell = page.locator("small", { hasText: new RegExp(`^${second.slug}$`) });
    const row = page.getByRole("table", { name: "Fleet" }).locator("tbody tr").filter({ has: slugCell });
    await row.getByRole("link", { name: `Availability of ${second.name}` }).click();
    await page.getByRole("heading", { name: "Blackouts" }).waitFor();
    expect(decodeURIComponent(page.url().split("#/availability/")[1])).toBe(second.slug);
    expect(await page.getByLabel("Vehicle", { exact: true }).inputValue()).toBe(second.slug);
    await nav("Availability");
    await page.getByRole("heading", { name: "Blackouts" }).waitFor();
    expect(await page.getByLabel("Vehicle", { exact: true }).inputValue()).toBe(slug);

    // To before From: 400, shown at the field.
    await page.getByLabel("From (UTC)").fill("2030-05-01T18:00");
    await page.getByLabel("To (UTC)").fill("2030-05-01T06:00");
    await page.getByRole("button", { name: "Add blackout" }).click();
    await page.locator(".field-error", { hasText: "to:" }).waitFor();
    expect(await page.getByLabel("To (UTC)").getAttribute("aria-invalid")).toBe("true");
    expect((await call("ACME-LIMO", "GET", `/api/fleet/${slug}/blackouts`)).body.data).toEqual([]);

    await page.getByLabel("From (UTC)").fill("2030-05-01T06:00");
    await page.getByLabel("To (UTC)").fill("2030-05-01T18:00");
    await page.getByLabel("Reason").fill("Annual service");
    await page.getByRole("button", { name: "Add blackout" }).click();
    await page.getByText("Blackout added.").waitFor();
    const rows = page.getByRole("table", { name: "Blackouts" }).locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.first().innerText()).toContain("2030-05-01 06:00\t2030-05-01 18:00\tAnnual service");
    const listed = (await call("ACME-LIMO", "GET", `/api/fleet/${slug}/blackouts`)).body.data;
    expect(listed).toMatchObject([{ kind: "BLACKOUT", from: "2030-05-01T06:00:00Z", to: "2030-05-01T18:00:00Z", reason: "Annual service" }]);

    await page.getByLabel("Starting (UTC day)").fill("2030-05-01");
    await page.getByLabel("View").selectOption("day");
    const schedule = page.getByRole("table", { name: "Schedule" });
    await schedule.locator("li", { hasText: "Annual service" }).waitFor();
    // The day view replaces the week's seven rows once drawn (bounded wait).
    for (let i = 0; i < 100 && (await schedule.locator("tbody tr").count()) !== 1; i++) await Bun.sleep(20);
    expect(await schedule.locator("tbody tr").count()).toBe(1);
    expect(await schedule.locator(".daybar .hold-blackout").count()).toBe(1);
    await shot("availability-blackout");

    await page.getByRole("button", { name: "Remove blackout 2030-05-01 06:00" }).click();
    await page.getByText("Blackout removed.").waitFor();
    expect((await call("ACME-LIMO", "GET", `/api/fleet/${slug}/blackouts`)).body.data).toEqual([]);
  }, 90_000);

  test("the booking rules (turnaround, minimum notice) are saved from the Availability page; a bad one names its field", async () => {
    const rules = page.getByRole("form", { name: "Booking rules" });
    expect(await rules.getByLabel("Turnaround (minutes)").inputValue()).toBe("30");
    await rules.getByLabel("Turnaround (minutes)").fill("45");
    await rules.getByLabel("Minimum notice (minutes)").fill("20000");
    await rules.getByRole("button", { name: "Save booking rules" }).click();
    await rules.locator(".field-error", { hasText: "minimumNoticeMinutes" }).waitFor();
    expect(await rules.getByLabel("Minimum notice (minutes)").getAttribute("aria-invalid")).toBe("true");
    const before = (await call("ACME-LIMO", "GET", "/api/company/integration")).body.data;
    expect([before.turnaroundMinutes, before.minimumNoticeMinutes]).toEqual([30, 0]);
    await rules.getByLabel("Minimum notice (minutes)").fill("120");
    await rules.getByRole("button", { name: "Save booking rules" }).click();
    await page.getByText("Booking rules saved.").waitFor();
    const after = (await call("ACME-LIMO", "GET", "/api/company/integration")).body.data;
    expect([after.turnaroundMinutes, after.minimumNoticeMinutes]).toEqual([45, 120]);
  }, 60_000);

  test("the schedule's week view shows a booking made from a quote holding the vehicle", async () => {
    const day = dayFromNow(3);
    const trip = {
      passengerCount: "2",
      locations: {
        pickup: { locationType: "airport", address: "JFK", time: `${day}T10:00:00` },
        dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
      },
      providers: ["ACME-LIMO"],
    };
    const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", trip);
    expect(quote.status).toBe(200);
    const option = quote.body.data.options[0];
    expect(option.provider.netid).toBe("ACME-LIMO");
    const booked = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
      quoteOptionId: option.quoteOptionId,
      requesterResNo: "SCHEDULE-1",
      passengers: [{ firstName: "Ada", lastName: "Lovelace" }],
    });
    expect(booked.status).toBeLessThan(300);
    const transactionId = booked.body.transactionId ?? booked.body.data?.transactionId;
    expect(transactionId).toEqual(expect.any(String));

    await page.goto(`${server.base}/console#/availability/${option.code}`);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.getByRole("heading", { name: "Schedule" }).waitFor();
    expect(await page.getByLabel("Vehicle", { exact: true }).inputValue()).toBe(option.code);
    await page.getByLabel("View").selectOption("week");
    await page.getByLabel("Starting (UTC day)").fill(dayFromNow(1));
    const schedule = page.getByRole("table", { name: "Schedule" });
    const hold = schedule.locator("li", { hasText: transactionId });
    await hold.waitFor();
    expect(await schedule.locator("tbody tr").count()).toBe(7);
    const window = `from=${day}T00:00:00Z&to=${dayFromNow(5)}T00:00:00Z`;
    const [held] = (await call("ACME-LIMO", "GET", `/api/fleet/${option.code}/schedule?${window}`)).body.data.holds;
    expect(held).toMatchObject({ kind: "BOOKING", transactionId });
    const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");
    expect((await hold.innerText()).replace(/\s+/g, " ")).toContain(`Booking ${minute(held.from)} – ${minute(held.to)}`);
    expect(await hold.getByRole("link").getAttribute("href")).toBe(`#/bookings/${transactionId}`);
    expect(await schedule.locator(".daybar .hold-booking").count()).toBeGreaterThanOrEqual(1);
    await shot("availability-schedule");
  }, 90_000);

  test("New trip shows each option's breakdown under its price, line by line as the quote answers it", async () => {
    await signInAt(page, server.base, "DEMO-PLATFORM");
    await nav("New trip");
    await page.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await page.getByLabel("Drop-off address").fill("20 W 34th St");
    await page.getByLabel("Drop-off city").fill("New York");
    await page.getByLabel("Drop-off country (2 letters)").fill("US");
    const table = page.getByRole("table", { name: "Quote options" });
    const shown = async (row: number) =>
      (await table.locator("tbody tr").nth(row).locator("ul.breakdown li").allInnerTexts()).map((l) => l.replace(/\s+/g, " ").trim());
    const expected = (o: { breakdown?: Array<{ name: string; amount: string }> }) => (o.breakdown ?? []).map((l) => `${l.name} ${l.amount}`);

    // The real answer: every option shows exactly its breakdown lines.
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/quotes") && r.request().method() === "POST");
    await page.getByRole("button", { name: "Get prices" }).click();
    const real = ((await (await answered).json()) as any).data;
    await table.waitFor();
    expect(real.options.length).toBeGreaterThan(0);
    for (const [i, o] of real.options.slice(0, 3).entries()) expect(await shown(i)).toEqual(expected(o));

    // An option priced by a rate card (docs/rates.md's worked example): its lines under the price, summing to it.
    const breakdown = [
      { kind: "BASE", id: "jfk-midtown", name: "Route fare", amount: "95.00" },
      { kind: "SURCHARGE", id: "jfk-fee", name: "Airport pickup", amount: "15.00" },
      { kind: "SURCHARGE", id: "night", name: "Night surcharge", amount: "19.00" },
      { kind: "EXTRA", code: "CHILD_SEAT", name: "Child seat", amount: "12.00" },
    ];
    await page.route("**/api/quotes", async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as any;
      // In USD: with the drop-off placed, the cheapest option may be another operator's, in its own currency.
      body.data.options[0] = { ...body.data.options[0], fee: "141.00", currency: "USD", breakdown };
      await route.fulfill({ response: res, json: body });
    });
    await page.getByRole("button", { name: "Get prices" }).click();
    const list = table.locator("tbody tr").first().getByRole("list", { name: /^Price breakdown of / });
    await list.locator("li", { hasText: "Child seat" }).waitFor();
    expect(await shown(0)).toEqual(["Route fare 95.00", "Airport pickup 15.00", "Night surcharge 19.00", "Child seat 12.00"]);
    expect(await table.locator("tbody tr").first().locator("strong").innerText()).toBe("141.00 USD");
    await page.unroute("**/api/quotes");
    await shot("newtrip-breakdown");
  }, 90_000);
});
