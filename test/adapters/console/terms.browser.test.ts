import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn as signInAt, startConsole, type ConsoleFixture } from "../../support/browser";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { postJson, type RunningServer } from "../../support/process";

// docs/terms.md in the console (issue 36 item 6), in a real Chromium against the demo data: the booking page's terms,
// acceptBy countdown, cancel fee and offers history; a provider's requests by acceptBy; New trip's provider records,
// sort and fallback.
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let nav: ConsoleFixture["nav"];
let shot: ConsoleFixture["shot"];
let acmePlatform: string;
let booked = ""; // the booking made in the New trip form, to ACME-LIMO with a fallback

const read = async (id: string) => (await call("DEMO-PLATFORM", "GET", `/api/reservation/${id}`)).body.data;
/** A local pickup time `days` from now at `hour`:00, as trips send it. */
const pickupAt = (days: number, hour: number) => `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T${String(hour).padStart(2, "0")}:00:00`;

/** A network quote of ACME-LIMO only, booked through the API with `extra` (acceptWithinMinutes, fallback). */
async function bookAcme(time: string, resNo: string, extra: Record<string, unknown>): Promise<string> {
  const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", {
    passengerCount: "2",
    providers: ["ACME-LIMO"],
    locations: { pickup: { locationType: "airport", address: "JFK", time }, dropOff: { address: "200 Park Ave", city: "New York", country: "US" } },
  });
  expect(quote.status).toBe(200);
  const { quoteId, options } = quote.body.data;
  const res = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quoteId}/book`, {
    quoteOptionId: options[0].quoteOptionId,
    requesterResNo: resNo,
    passengers: [{ firstName: "Ada", lastName: "King" }],
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.body.transactionId;
}

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await Bun.sleep(200);
  }
}

beforeAll(async () => {
  // ACME-LIMO answers by hand (not a sandbox): its requests wait for acceptance. The offer watch looks often.
  consoleApp = await startConsole({
    env: { OFFER_WATCH_MS: "200" },
    commands: [["company", "set-sandbox", "ACME-LIMO", "off"]],
    tokensFor: ["ACME-LIMO", "DEMO-PLATFORM"],
    shotPrefix: "terms-",
  });
  ({ server, page, call, nav, shot } = consoleApp);
  acmePlatform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: DEMO_LOGIN.pw })).body;
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("terms, acceptance deadlines and the cascade in the console, in a real browser", () => {
  test("New trip: each option shows its provider's record, sorts by reliability, and books with a fallback", async () => {
    await signInAt(page, server.base, "DEMO-PLATFORM");
    await nav("New trip");
    await page.getByLabel("Pickup airport (IATA code)").fill("JFK");
    await page.getByLabel("Pickup time").fill(pickupAt(3, 9).slice(0, 16));
    await page.getByLabel("Drop-off address").fill("200 Park Ave");
    await page.getByLabel("Drop-off city").fill("New York");
    await page.getByLabel("Drop-off country (2 letters)").fill("US");
    await page.getByLabel("Sort options by").selectOption("reliability");
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/quotes") && r.method() === "POST");
    await page.getByRole("button", { name: "Get prices" }).click();
    expect((await sent).postDataJSON().sort).toBe("reliability");
    const table = page.getByRole("table", { name: "Quote options" });
    await table.waitFor();
    const rows = table.locator("tbody tr");
    const n = await rows.count();
    expect(n).toBeGreaterThan(1);
    // Beside each option, its provider's record as GET /api/providers/{netid}/record tells it.
    for (let i = 0; i < n; i++) {
      const netid = (await rows.nth(i).locator("td").first().locator(".muted").innerText()).trim();
      const record = (await call("DEMO-PLATFORM", "GET", `/api/providers/${netid}/record`)).body.data;
      const shown = await rows.nth(i).locator("td.record").innerText();
      if (record.acceptedPct == null) expect(shown).toStartWith("new provider");
      else expect(shown).toContain(`${record.acceptedPct}% accepted`);
    }
    await shot("newtrip");

    await page.getByLabel("Passenger first name").fill("Grace");
    await page.getByLabel("Passenger last name").fill("Hopper");
    await page.getByLabel("Fallback: highest fee").fill("500.00");
    const bookSent = page.waitForRequest((r) => /\/api\/quotes\/[^/]+\/book$/.test(r.url()));
    await rows.filter({ hasText: "ACME-LIMO" }).first().getByRole("button", { name: /^Book / }).click();
    expect((await bookSent).postDataJSON().fallback).toEqual({ maxFee: "500.00" });
    await page.waitForURL(/#\/bookings\/[0-9a-f-]{36}$/);
    booked = page.url().split("/").at(-1)!;
    const b = await read(booked);
    expect(b.fallback).toEqual({ maxFee: "500.00" });
    expect(b.providerId).toBe("ACME-LIMO");
  }, 120_000);

  test("the booking page shows the terms, the acceptBy countdown, the offers and the cancel fee", async () => {
    const b = await read(booked);
    await page.getByRole("heading", { name: "Terms" }).waitFor();
    const terms = page.locator("dl.terms");
    expect(await terms.innerText()).toContain("Free cancellation until");
    expect(await page.getByRole("list", { name: "Cancellation tiers" }).locator("li").count()).toBe(b.terms.cancellation.length);
    expect(await terms.innerText()).toContain(`${b.terms.freeWaitingMinutes} min`);
    // The assignment deadline (docs/terms.md#the-assignment-deadline): shown beside the other terms.
    expect(b.terms.assignBy).toBeDefined();
    expect(await terms.innerText()).toContain("Chauffeur assigned by");
    expect(await terms.innerText()).toContain("up to 500.00");
    const left = page.getByLabel("Time left to accept");
    const first = await left.innerText();
    expect(first).toMatch(/left$/);
    await until(async () => left.innerText(), (t) => t !== first, 5_000);
    expect(await left.innerText()).not.toBe(first);
    const offers = page.getByRole("table", { name: "Offers" }).locator("tbody tr");
    expect(await offers.count()).toBe(1);
    expect(await offers.first().innerText()).toContain("ACME-LIMO");
    await shot("booking");

    // The requester's cancel dialog says what cancelling costs now; going back sends nothing.
    const fee = (await call("DEMO-PLATFORM", "GET", `/api/reservation/${booked}/cancel-fee`)).body.data;
    await page.getByRole("button", { name: "Cancel trip" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this trip?" });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(fee.percent ? `costs ${fee.fee} ${fee.currency} (${fee.percent}% of the fare)` : "Cancelling now is free");
    await dialog.getByRole("button", { name: "Go back" }).click();
    expect((await read(booked)).lastStatus).toBe("BOOKING_REQUEST");
  }, 60_000);

  test("a provider's Bookings list puts the requests awaiting acceptance first, soonest acceptBy first, with the time left", async () => {
    const later = await bookAcme(pickupAt(5, 10), "TERMS-LATER", { acceptWithinMinutes: 50 });
    const sooner = await bookAcme(pickupAt(6, 11), "TERMS-SOONER", { acceptWithinMinutes: 10 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await signInAt(page, server.base, "ACME-LIMO", { hash: "#/bookings" });
    const table = page.getByRole("table", { name: "Awaiting your acceptance" });
    await table.waitFor();
    const ids = await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.awaiting));
    expect(ids).toContain(later);
    expect(ids).toContain(sooner);
    expect(ids.indexOf(sooner)).toBeLessThan(ids.indexOf(later));
    const deadlines = await Promise.all(ids.map(async (id) => Date.parse((await read(id!)).acceptBy)));
    expect(deadlines).toEqual([...deadlines].sort((a, b) => a - b));
    for (const cell of await table.locator("td.accept-left").allInnerTexts()) expect(cell).toMatch(/left$/);
    await shot("provider-awaiting");
  }, 60_000);

  test("the offers history shows each provider's status and reason, and an exchange-ended booking says why", async () => {
    // ACME-LIMO declines the booking made in New trip: the cascade moves it on, or ends it (no other option fits).
    const reject = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${booked}/V1`, { status: "REJECT" }, { token: acmePlatform });
    expect(reject.status).toBe(200);
    const moved = await until(() => read(booked), (b) => b.offers.length > 1 || b.reason !== undefined);
    expect(moved.offers[0]).toMatchObject({ provider: "ACME-LIMO", status: "REJECT" });
    // A booking of ACME-LIMO only, with a fallback: declined, it has nowhere to go (NO_PROVIDER_ACCEPTED).
    const alone = await bookAcme(pickupAt(7, 12), "TERMS-ALONE", { fallback: { maxFee: "500.00" } });
    expect((await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${alone}/V1`, { status: "REJECT" }, { token: acmePlatform })).status).toBe(200);
    expect((await until(() => read(alone), (b) => b.reason !== undefined)).reason).toBe("NO_PROVIDER_ACCEPTED");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await signInAt(page, server.base, "DEMO-PLATFORM", { hash: `#/bookings/${booked}` });
    const b = await read(booked);
    const rows = page.getByRole("table", { name: "Offers" }).locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(b.offers.length);
    for (const [i, o] of b.offers.entries()) {
      const text = await rows.nth(i).innerText();
      expect(text).toContain(o.provider);
      expect(text).toContain(o.status);
      if (o.fee) expect(text).toContain(o.fee);
      if (o.reason) expect(text).toContain(o.reason);
    }
    expect(await rows.first().innerText()).toContain("PROVIDER_REJECTED");
    await shot("offers");

    await page.goto(`${server.base}/console#/bookings/${alone}`);
    await page.getByText("Ended by the exchange").waitFor();
    expect(await page.locator(".booking-reason").innerText()).toContain("NO_PROVIDER_ACCEPTED");
    // No countdown once the booking is no longer awaiting acceptance.
    expect(await page.getByLabel("Time left to accept").count()).toBe(0);
  }, 90_000);
});
