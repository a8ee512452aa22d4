import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signIn, startConsole, type ConsoleFixture } from "../../support/browser";
import { DEMO_LOGIN } from "../../../src/demo/seed";
import { postJson, type RunningServer } from "../../support/process";

// Money after the trip in the console (docs/settlement.md), in a real Chromium against the demo data: the Integration
// page shows and edits the giveBackRecovery tiers (a bad tier marked beside its field, nothing saved); a booking's
// page shows its final fare (OPEN until when) and a give-back's cost recovery; the Statements page lists the month's
// counterparties, opens a statement with its lines and totals, and disputes a line, which the other party answers.
let server: RunningServer;
let page: Page;
let consoleApp: ConsoleFixture;
let call: ConsoleFixture["call"];
let acmePlatform: string;

const TIERS = [
  { beforeMinutes: 2880, percent: 10 },
  { beforeMinutes: 0, percent: 60 },
];

/** The wall-clock time `minutes` from now at JFK, as trips send it (its local time). */
function jfkTimeIn(minutes: number): string {
  const local = new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York", dateStyle: "short", timeStyle: "medium" });
  return local.format(new Date(Date.now() + minutes * 60_000)).replace(" ", "T");
}

/** A DEMO-PLATFORM booking with ACME-LIMO from a quote, picked up in 45 minutes, accepted: its id and quoted option. */
async function accepted(resNo: string): Promise<{ id: string; option: { fee: string; currency: string; code: string } }> {
  const quote = await call("DEMO-PLATFORM", "POST", "/api/quotes", {
    passengerCount: "2",
    providers: ["ACME-LIMO"],
    locations: { pickup: { locationType: "airport", address: "JFK", time: jfkTimeIn(45) }, dropOff: { address: "20 W 34th St, New York", lat: "40.7484", lon: "-73.9857" } },
  });
  expect(quote.status).toBe(200);
  const option = quote.body.data.options[0];
  const booked = await call("DEMO-PLATFORM", "POST", `/api/quotes/${quote.body.data.quoteId}/book`, {
    quoteOptionId: option.quoteOptionId,
    requesterResNo: resNo,
    passengers: [{ firstName: "Ada", lastName: "King" }],
  });
  expect(booked.status).toBe(200);
  const id = booked.body.transactionId as string;
  expect((await update(id, { status: "CONFIRMED" })).status).toBe(200);
  return { id, option };
}

/** Signs `uid` in, signing the page's company out first (the console keeps its tokens in memory: a hash change keeps them). */
async function signInAs(uid: string, hash?: string): Promise<void> {
  const out = page.getByRole("button", { name: "Sign out" });
  if (await out.isVisible()) {
    await out.click();
    await page.getByLabel("User ID").waitFor();
  }
  await signIn(page, server.base, uid, { hash });
}

const update = (id: string, body: unknown) => postJson(`${server.base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, body, { token: acmePlatform });

beforeAll(async () => {
  // ACME-LIMO answers by hand (not a sandbox): its requests wait for acceptance and it sends every status itself.
  consoleApp = await startConsole({ commands: [["company", "set-sandbox", "ACME-LIMO", "off"]], tokensFor: ["DEMO-PLATFORM", "ACME-LIMO"], shotPrefix: "settlement-" });
  ({ server, page, call } = consoleApp);
  acmePlatform = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "ACME-LIMO", pw: DEMO_LOGIN.pw })).body;
}, 300_000);

afterAll(async () => {
  if (consoleApp) expect(await consoleApp.stop()).toBe(0);
});

describe("money after the trip in the console, in a real browser", () => {
  test("Integration shows the default give-back recovery tiers, marks a bad one, and saves new ones", async () => {
    await signInAs("DEMO-PLATFORM");
    await consoleApp.nav("Integration");
    const tiers = page.getByLabel("Give-back recovery (JSON)");
    await tiers.waitFor();
    const before = (await call("DEMO-PLATFORM", "GET", "/api/company/integration")).body.data.giveBackRecovery;
    expect(JSON.parse(await tiers.inputValue())).toEqual(before);
    expect(before).toEqual([
      { beforeMinutes: 1440, percent: 0 },
      { beforeMinutes: 120, percent: 50 },
      { beforeMinutes: 0, percent: 100 },
    ]);

    await tiers.fill(JSON.stringify([{ beforeMinutes: 120, percent: 0 }, { beforeMinutes: 0, percent: 101 }]));
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("alert").filter({ hasText: "giveBackRecovery[1].percent" }).waitFor();
    expect(await tiers.getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Policies (JSON)").getAttribute("aria-invalid")).toBeNull();
    expect((await call("DEMO-PLATFORM", "GET", "/api/company/integration")).body.data.giveBackRecovery).toEqual(before);

    await tiers.fill(JSON.stringify(TIERS));
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByText("Integration saved.").waitFor();
    expect(await tiers.getAttribute("aria-invalid")).toBeNull();
    expect((await call("DEMO-PLATFORM", "GET", "/api/company/integration")).body.data.giveBackRecovery).toEqual(TIERS);
    await consoleApp.shot("integration");
  }, 90_000);

  test("a closed booking's page says its fare is OPEN until when; a given-back one shows the cost recovery its tiers make", async () => {
    const stamp = Date.now();
    const run = await accepted(`SETTLE-RUN-${stamp}`);
    expect((await update(run.id, { status: "CLOSE" })).status).toBe(200);
    const fare = (await call("DEMO-PLATFORM", "GET", `/api/reservation/${run.id}`)).body.data.tripPacket.finalFare;
    expect(fare.state).toBe("OPEN");

    await signInAs("DEMO-PLATFORM", `#/bookings/${run.id}`);
    const finalFare = page.locator(".final-fare");
    await finalFare.waitFor();
    expect(await finalFare.innerText()).toContain("OPEN — the provider may add lines (tolls, parking, waiting) until ");
    // The instant shown is the read's `until` (in the pickup's zone on screen, the instant itself in `datetime`).
    expect(await finalFare.locator("time").getAttribute("datetime")).toBe(new Date(Date.parse(fare.until)).toISOString());
    expect(await page.locator(".cost-recovery").count()).toBe(0);
    expect(await page.locator("main").innerText()).not.toContain("null");

    // Given back 45 minutes before the pickup: the last tier, 60 % of the quoted fare.
    const gone = await accepted(`SETTLE-BACK-${stamp}`);
    expect((await update(gone.id, { status: "CANCEL" })).status).toBe(200);
    const recovery = (await call("DEMO-PLATFORM", "GET", `/api/reservation/${gone.id}`)).body.data.tripPacket.costRecovery;
    expect(recovery).toMatchObject({ owedBy: "ACME-LIMO", owedTo: "DEMO-PLATFORM", percent: 60, fare: gone.option.fee });
    await page.goto(`${server.base}/console#/bookings/${gone.id}`);
    const said = page.locator(".cost-recovery");
    await said.waitFor();
    expect(await said.innerText()).toBe(
      `ACME-LIMO owes DEMO-PLATFORM ${recovery.amount} ${recovery.currency} (60% of the quoted fare ${gone.option.fee} ${recovery.currency}) for giving the booking back.`,
    );
    expect(await page.locator(".final-fare").count()).toBe(0);
    await consoleApp.shot("booking-recovery");
  }, 120_000);

  test("Statements: the month's list, a statement's lines and totals, disputing a line, and the other party's answer", async () => {
    const stamp = Date.now();
    const run = await accepted(`SETTLE-STMT-${stamp}`);
    expect((await update(run.id, { status: "CLOSE" })).status).toBe(200);
    const period = new Date(Date.now() + 45 * 60_000).toISOString().slice(0, 7);
    const api = (await call("DEMO-PLATFORM", "GET", `/api/statements?period=${period}&counterparty=ACME-LIMO`)).body.data;
    expect(api.lines.some((l: { transactionId: string }) => l.transactionId === run.id)).toBe(true);

    await signInAs("DEMO-PLATFORM", `#/statements/${period}`);
    const list = page.getByRole("table", { name: `Counterparties in ${period}` });
    const acmeRow = list.getByRole("row").filter({ has: page.getByRole("link", { name: "ACME-LIMO", exact: true }) });
    await acmeRow.waitFor();
    const acmeNet = api.totals.map((t: { net: string; currency: string }) => `${t.net} ${t.currency}`).join(", ");
    expect(await acmeRow.innerText()).toContain(acmeNet);

    await acmeRow.getByRole("link", { name: "ACME-LIMO" }).click();
    const lines = page.getByRole("table", { name: "Lines" });
    const line = lines.getByRole("row").filter({ hasText: `SETTLE-STMT-${stamp}` });
    await line.waitFor();
    expect(await line.innerText()).toContain(`FARE`);
    expect(await line.innerText()).toContain(`${run.option.fee} ${run.option.currency}`);
    const totals = page.getByRole("table", { name: "Totals" });
    for (const t of api.totals) expect(await totals.innerText()).toContain(t.net);

    await line.getByLabel("Reason").fill("The toll was not on the route");
    await line.getByRole("button", { name: "Dispute" }).click();
    await page.getByRole("heading", { name: `ACME-LIMO, ${period}: DISPUTED` }).waitFor();
    expect(await lines.getByRole("row").filter({ hasText: `SETTLE-STMT-${stamp}` }).innerText()).toContain("yes");
    expect(await page.locator("main").innerText()).toContain(`DEMO-PLATFORM on ${run.id}: “The toll was not on the route” — OPEN`);
    const raised = (await call("ACME-LIMO", "GET", `/api/statements?period=${period}&counterparty=DEMO-PLATFORM`)).body.data;
    expect(raised.state).toBe("DISPUTED");
    expect(raised.disputes.filter((d: { state: string }) => d.state === "OPEN").map((d: { transactionId: string }) => d.transactionId)).toEqual([run.id]);
    await consoleApp.shot("statement-disputed");

    // ACME-LIMO answers it on its own Statements page: the dispute ends, the line is no longer disputed.
    await signInAs("ACME-LIMO", `#/statements/${period}/DEMO-PLATFORM`);
    const dispute = page.getByRole("listitem").filter({ hasText: "The toll was not on the route" });
    await dispute.getByRole("textbox", { name: "Answer" }).fill("It was on the booked route");
    await dispute.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("listitem").filter({ hasText: "ANSWERED: “It was on the booked route”" }).waitFor();
    const ended = (await call("DEMO-PLATFORM", "GET", `/api/statements?period=${period}&counterparty=ACME-LIMO`)).body.data;
    expect(ended.disputes.find((d: { transactionId: string }) => d.transactionId === run.id)).toMatchObject({ state: "ANSWERED", answer: "It was on the booked route" });
    expect(ended.lines.find((l: { transactionId: string }) => l.transactionId === run.id).disputed).toBe(false);
  }, 120_000);
});
