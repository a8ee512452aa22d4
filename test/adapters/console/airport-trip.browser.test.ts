import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn, startConsole, type ConsoleFixture } from "../../support/browser";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { postJson, type RunningServer } from "../../support/process";

// The airport trip on the console's booking page (docs/flights.md), in a real Chromium against the demo data: the
// flight (scheduled / estimated / landed), the pickup it moved with its cause, the ETA, arrivedAt, the waiting clock,
// the refused early NO_SHOW, the WAITING charge once on board, and the ON_LOCATION_BEFORE_ARRIVAL flag; both parties
// report the flight's landing from the page. The times are real: the server runs on the wall clock.
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let acmePlatform: string;

/** JFK's position in the airport directory: an airport pickup is reached within 1.5 km of it. */
const JFK = { lat: 40.63983, lon: -73.77874 };
/** The start of the current minute (ms): every time of the story is counted from it. */
const base = Math.floor(Date.now() / 60_000) * 60_000;
const at = (minutes: number) => base + minutes * 60_000;
/** The wall-clock time at JFK of `ms`, as trips send it. */
const jfk = (ms: number) =>
  new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York", dateStyle: "short", timeStyle: "medium" }).format(new Date(ms)).replace(" ", "T");
/** How the page's <time> elements carry an instant (datetime). */
const iso = (ms: number) => new Date(ms).toISOString();
/** How the API writes an instant. */
const isoZ = (ms: number) => iso(ms).replace(".000Z", "Z");

/** Signs `uid` in afresh (the console keeps its tokens in memory: a new document forgets the last company). */
async function signInAs(uid: string, id: string) {
  await page.goto("about:blank");
  await signIn(page, server.base, uid, { hash: `#/bookings/${id}` });
}

const read = async (id: string) => (await call("DEMO-PLATFORM", "GET", `/api/reservation/${id}`)).body.data;
const datetimes = (selector: string) => page.locator(`${selector} time`).evaluateAll((els) => els.map((e) => e.getAttribute("datetime")));

async function providerUpdate(id: string, status: string) {
  const res = await postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, { status }, { token: acmePlatform });
  expect(res.status).toBe(200);
}

/** The chauffeur's position `north` metres north of JFK, taken at `takenMs`. */
async function position(id: string, north: number, takenMs: number) {
  const body = { transactionId: id, latitude: JFK.lat + north / 111_195, longitude: JFK.lon, locationDateTime: isoZ(Math.floor(takenMs / 1000) * 1000) };
  const res = await postJson(`${server.base}/api/GGPS.svc/saveGPScache`, body, { token: acmePlatform });
  expect(res.status).toBe(200);
}

/** ACME-LIMO's first option for a JFK pickup at `pickupMs` (with BA117 landing at `landingMs` when given), booked. */
async function book(pickupMs: number, landingMs?: number): Promise<string> {
  const flightInfo = landingMs ? { flightInfo: { airlineCode: "BA", flightNumber: "117", scheduledArrival: jfk(landingMs) } } : {};
  const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", {
    passengerCount: "2",
    providers: ["ACME-LIMO"],
    locations: {
      pickup: { locationType: "airport", address: "JFK", time: jfk(pickupMs), ...flightInfo },
      dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" },
    },
  });
  expect(quote.status).toBe(200);
  const booked = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
    quoteOptionId: quote.body.data.options[0].quoteOptionId,
    requesterResNo: `AIRPORT-${Date.now()}`,
    passengers: [{ firstName: "Ada", lastName: "King" }],
  });
  expect(booked.status).toBe(200);
  return booked.body.transactionId;
}

/** Reports the flight's landing from the booking page's form, and waits for what the page says. */
async function report(kind: "Estimated arrival" | "Landed at", ms: number) {
  const form = page.getByRole("form", { name: "Report flight status" });
  await form.getByLabel("Flight status", { exact: true }).selectOption({ label: kind });
  await form.getByLabel("Arrival (local time at the airport)").fill(jfk(ms).slice(0, 16));
  await form.getByRole("button", { name: "Report flight status" }).click();
  await said().waitFor();
}
const said = () => page.locator(".status", { hasText: "Flight status reported" }).first();

beforeAll(async () => {
  // ACME-LIMO answers by hand (not a sandbox), and charges waiting: 20.00 per started 15 min beyond 60 free minutes.
  consoleApp = await startConsole({
    commands: [["company", "set-sandbox", "ACME-LIMO", "off"]],
    tokensFor: ["ACME-LIMO", "DEMO-PLATFORM"],
    shotPrefix: "airport-",
  });
  ({ server, page, call } = consoleApp);
  acmePlatform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: DEMO_LOGIN.pw })).body;
  const policies = { waitingRate: { amount: "20.00", perMinutes: 15 }, freeWaitingMinutes: { airport: 60 } };
  expect((await call("ACME-LIMO", "PUT", "/api/company/integration", { policies })).status).toBe(200);
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("the airport trip on the booking page, in a real browser", () => {
  test("the flight and its moves, ETA, arrival, the waiting clock, an early NO_SHOW refused and the WAITING charge", async () => {
    // BA117 lands in 75 minutes and the pickup is 45 minutes after it.
    const id = await book(at(120), at(75));
    await signInAs("DEMO-PLATFORM", id);
    const flight = page.locator("dl.flight");
    await page.locator(".flight-number").waitFor();
    expect(await page.locator(".flight-number").innerText()).toBe("BA 117");
    expect(await page.locator(".flight-state").innerText()).toBe("SCHEDULED");
    expect(await flight.innerText()).toContain("45 min");
    expect(await datetimes("dl.flight")).toContain(iso(at(75)));

    // The requester reports a delay: an estimate 30 minutes late moves the pickup 30 minutes later.
    await report("Estimated arrival", at(105));
    expect(await said().innerText()).toStartWith(`Flight status reported: the pickup moved to ${jfk(at(150))} (FLIGHT_DELAY).`);
    const moved = page.locator('.pickup-moved[data-cause="FLIGHT_DELAY"]');
    await moved.waitFor();
    expect(await moved.innerText()).toContain("(FLIGHT_DELAY: the flight is late)");
    expect(await datetimes(".pickup-moved")).toEqual([iso(at(120)), iso(at(150))]);
    expect(await page.locator(".flight-state").innerText()).toBe("ESTIMATED");
    expect(await datetimes(".flight-estimated")).toEqual([iso(at(105))]);
    expect(await datetimes(".pickup-time")).toEqual([iso(at(150))]);
    expect((await read(id)).flight.lastMove).toMatchObject({ from: isoZ(at(120)), to: isoZ(at(150)), cause: "FLIGHT_DELAY" });

    // ACME-LIMO assigns a chauffeur, 10 km north of the airport: 13 km of road at 40 km/h, 20 minutes.
    await providerUpdate(id, "CONFIRMED");
    await providerUpdate(id, "ASSIGNED");
    await position(id, 10_000, at(-100));
    const { eta } = await read(id);
    expect(eta.toPickupMinutes).toBe(20);
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.locator(".eta").waitFor();
    expect(await page.locator(".eta").innerText()).toStartWith("20 minutes to the pickup · there at ");
    expect(await datetimes(".eta")).toEqual([iso(Date.parse(eta.at))]);
    expect(await page.locator(".arrived-at").innerText()).toBe("not yet (no position at the pickup)");

    // It reaches the airport 95 minutes ago (by its positions) and says ON_LOCATION.
    await providerUpdate(id, "EN_ROUTE");
    // A booking's positions are taken at most once a second (429 sooner).
    await Bun.sleep(1100);
    await position(id, 200, at(-95));
    await providerUpdate(id, "ON_LOCATION");
    expect((await read(id)).arrivedAt).toBe(isoZ(at(-95)));

    // The provider's page: arrived, the clock waits for the pickup, and a NO_SHOW now is refused.
    await signInAs("ACME-LIMO", id);
    await page.locator(".arrived-at time").waitFor();
    expect(await datetimes(".arrived-at")).toEqual([iso(at(-95))]);
    expect(await page.locator(".eta").count()).toBe(0);
    expect(await page.locator(".waiting-clock").innerText()).toBe("starts at the pickup: 60 free minutes from then");
    expect(await datetimes(".no-show-from")).toEqual([iso(at(210))]);
    await page.getByRole("button", { name: "Move to NO_SHOW" }).click();
    await page.getByRole("dialog").getByRole("button", { name: /^Yes/ }).click();
    const refused = page.getByRole("alert");
    await refused.waitFor();
    expect(await refused.innerText()).toContain(`it may be sent from ${isoZ(at(210))}`);
    expect((await read(id)).lastStatus).toBe("ON_LOCATION");

    // The flight landed an hour ago after all: the pickup moves earlier, and the free minutes run from it.
    await report("Landed at", at(-60));
    const early = page.locator('.pickup-moved[data-cause="FLIGHT_EARLY"]');
    await early.waitFor();
    expect(await early.innerText()).toContain("(FLIGHT_EARLY: the flight is early)");
    expect(await page.locator(".flight-state").innerText()).toBe("LANDED");
    expect(await datetimes(".flight-landed")).toEqual([iso(at(-60))]);
    const left = (await page.locator(".waiting-clock").innerText()).match(/^(\d+) minutes waited · (\d+) free minutes left$/);
    expect(left).not.toBeNull();
    expect(Number(left![1]) + Number(left![2])).toBe(60);
    expect(Number(left![1])).toBeGreaterThanOrEqual(15);

    // Corrected: it landed 150 minutes ago, so the pickup was 105 minutes ago; the chauffeur has waited 95 minutes.
    await report("Landed at", at(-150));
    await page.locator(".waiting-clock", { hasText: "the 60 free minutes are over" }).waitFor();
    expect(await page.locator(".waiting-clock").innerText()).toMatch(
      /^(9[5-9]|10\d) minutes waited · the 60 free minutes are over \(each started 15 min beyond them is charged 20\.00\)$/,
    );
    await consoleApp.shot("waiting");

    // On board: the WAITING lines and their sum, as the booking's evidence says.
    await page.getByRole("button", { name: "Move to PASSENGER_ON_BOARD" }).click();
    await page.getByText("Move to PASSENGER_ON_BOARD: done.").waitFor();
    await page.locator(".waiting-charge").waitFor();
    const b = await read(id);
    const waiting = b.tripPacket.fees.filter((f: { code?: string }) => f.code === "WAITING");
    const { waitedMinutes } = waiting[0].evidence;
    expect(waiting.length).toBe(Math.ceil((waitedMinutes - 60) / 15));
    const sum = (waiting.length * 20).toFixed(2);
    const currency = waiting[0].currency ? ` ${waiting[0].currency}` : "";
    await page.locator(".waiting-charge", { hasText: "in all" }).waitFor();
    expect(await page.locator(".waiting-charge").innerText()).toStartWith(
      `${waitedMinutes} minutes waited: ${waiting.length} WAITING lines of 20.00${currency}, ${sum}${currency} in all · from `,
    );
    expect(await datetimes(".waiting-charge")).toEqual([iso(at(-95)), iso(Date.parse(waiting[0].evidence.onBoardAt))]);
    expect(await page.getByRole("table", { name: "Fee lines" }).locator("tbody tr", { hasText: "Waiting, period" }).count()).toBe(waiting.length);
    // The form is gone: a flight no longer moves a pickup whose passenger is on board.
    expect(await page.getByRole("form", { name: "Report flight status" }).count()).toBe(0);
    const text = await page.locator("main").innerText();
    expect(text).not.toContain("null");
    expect(text).not.toContain("undefined");
    await consoleApp.shot("on-board");
  }, 180_000);

  test("an ON_LOCATION sent more than 5 minutes before the chauffeur's arrival is flagged on the page", async () => {
    const id = await book(at(360));
    // Before a chauffeur is assigned, a booking with no flight has no such section (and no stray "null").
    await signInAs("DEMO-PLATFORM", id);
    await page.getByRole("heading", { name: "Price" }).waitFor();
    expect(await page.getByRole("heading", { name: "Arrival and waiting" }).count()).toBe(0);
    expect(await page.locator("main").innerText()).not.toContain("null");
    for (const status of ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION"]) await providerUpdate(id, status);
    // A position may be taken up to 5 minutes ahead of the clock: 4 min 58 s ahead, 3 s after the ON_LOCATION.
    await Bun.sleep(3000);
    await position(id, 0, Date.now() + 298_000);
    expect((await read(id)).flags).toEqual(["ON_LOCATION_BEFORE_ARRIVAL"]);
    await page.getByRole("button", { name: "Refresh" }).click();
    const flag = page.locator('.booking-flag[data-flag="ON_LOCATION_BEFORE_ARRIVAL"]');
    await flag.waitFor();
    expect(await flag.innerText()).toBe("ON_LOCATION_BEFORE_ARRIVAL: ON_LOCATION was sent more than 5 minutes before the chauffeur arrived");
    expect(await page.getByRole("heading", { name: "Arrival and waiting" }).count()).toBe(1);
    // No flight: nothing to report.
    expect(await page.getByRole("form", { name: "Report flight status" }).count()).toBe(0);
  }, 120_000);

  test("a QUOTE's page (no offers, no terms) shows no stray \"null\" either", async () => {
    // A QUOTE has no offer to accept, so its page has neither an offer history nor terms to show.
    const platform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "DEMO-PLATFORM", pw: DEMO_LOGIN.pw })).body;
    const trip = {
      reservationType: "QUOTE",
      runType: "Airport",
      passengerCount: "2",
      locations: { pickup: { locationType: "airport", address: "JFK", time: jfk(at(600)) }, dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" } },
      passengers: [{ firstName: "Ada", lastName: "King" }],
      affiliateReservation: { requesterId: "DEMO-PLATFORM", requesterResNo: `QUOTE-${Date.now()}`, providerId: "ACME-LIMO", action: "NEW" },
    };
    const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, trip, { token: platform });
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    expect((await read(id)).offers).toBeUndefined();
    await signInAs("DEMO-PLATFORM", id);
    await page.getByRole("heading", { name: "Timeline" }).waitFor();
    expect(await page.locator("main").innerText()).not.toContain("null");
  }, 60_000);
});
