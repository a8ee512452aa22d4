import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync, writeFileSync } from "node:fs";
import { createHarness, ManualClock, TEST_JWT_SECRET, type Harness } from "../../../support/harness";
import { ROOT, runCli, tempDir } from "../../../support/process";
import { party, type Party } from "../../../support/trips";

/**
 * Currencies in the network quote (docs/fx.md#what-a-network-quote-shows) through HTTP: every option kept in its own currency, ranked by
 * its fee converted with the exchange's FX table; the table shipped, imported by the CLI from the ECB's files as
 * published, in use on a second instance of the same database within 5 s, and refused whole when wrong.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const dir = tempDir("tripswitch-fx-");
const dbPath = join(dir, "fx.sqlite");
const EXAMPLES = join(ROOT, "test/adapters/http/core/fixtures");
let h: Harness;
/** A second instance of the service on the same database. */
let other: Harness;
let maker: Party, eurA: Party, eurB: Party, yen: Party, dirham: Party, narita: Party;

const NRT = { lat: 35.772, lon: 140.3929 };
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });

async function fleet(netid: string, cars: Array<{ slug: string; hourly: string; currency: string; minimum?: string }>) {
  await h.services.fleet.insertAll(
    cars.map((c) => ({
      slugBase: c.slug,
      netid,
      type: "SEDAN",
      name: c.slug,
      description: "",
      imageUrl: null,
      maxPassengers: 4,
      maxLuggage: 4,
      lat: NRT.lat,
      lon: NRT.lon,
      airports: ["NRT"],
      minimumRate: c.minimum ?? "0",
      hourlyRate: c.hourly,
      currency: c.currency,
      active: true,
      createdAt: 0,
      updatedAt: 0,
    })),
  );
}

/** 2 passengers from Narita into Tokyo. */
const trip = (over: Record<string, unknown> = {}) => ({
  passengerCount: "2",
  locations: {
    pickup: { locationType: "airport", address: "NRT", time: "2027-04-02T09:00:00" },
    dropOff: { locationType: "address", address: "Tokyo Station", lat: "35.6812", lon: "139.7671" },
  },
  ...over,
});
const quote = (body: unknown, who: Party = maker) => h.request("POST", "/api/quotes", { headers: bearer(who), body });
const cli = (...args: string[]) => runCli(args, { ...h.cliEnv, JWT_SECRET: TEST_JWT_SECRET });
const codes = (warnings: Array<{ code: string }>) => warnings.map((w) => w.code);

/** Today's ECB CSV, as published (a trailing comma on each line), with the rates given. */
function todaysCsv(rates: Record<string, string>): string {
  const day = new Date(clock.now() * 1000);
  const month = day.toLocaleString("en-GB", { month: "long", timeZone: "UTC" });
  const codes = Object.keys(rates);
  return `Date, ${codes.join(", ")}, \n${day.getUTCDate()} ${month} ${day.getUTCFullYear()}, ${codes.map((c) => rates[c]).join(", ")}, \n`;
}

beforeAll(async () => {
  h = createHarness({ clock, dbPath });
  [maker, eurA, eurB, yen, dirham, narita] = await Promise.all([
    party(h, "FX-BOOKWELL", "CO"),
    party(h, "FX-EURO-A", "IO"),
    party(h, "FX-EURO-B", "IO"),
    party(h, "FX-YEN", "IO"),
    party(h, "FX-DIRHAM", "IO"),
    party(h, "FX-NARITA", "IO"),
  ]);
  // The Tokyo case: five cars priced in EUR and one in JPY serve Narita; the pickup country's currency is JPY.
  await fleet(eurA.netid, [
    { slug: "eur-50", hourly: "50.00", currency: "EUR" },
    { slug: "eur-70", hourly: "70.00", currency: "EUR" },
    { slug: "eur-90", hourly: "90.00", currency: "EUR" },
  ]);
  await fleet(eurB.netid, [
    { slug: "eur-60", hourly: "60.00", currency: "EUR" },
    { slug: "eur-80", hourly: "80.00", currency: "EUR" },
  ]);
  // 11,000 JPY an hour is about 64 EUR at 171.94 JPY per EUR: between eur-60 and eur-70.
  await fleet(yen.netid, [{ slug: "yen-car", hourly: "11000", currency: "JPY" }]);
  // docs/fx.md's worked example: a Narita transfer at its 27,850 JPY minimum.
  await fleet(narita.netid, [{ slug: "narita-van", hourly: "0", minimum: "27850", currency: "JPY" }]);
  // The ECB publishes no AED rate.
  await fleet(dirham.netid, [{ slug: "aed-car", hourly: "10.00", currency: "AED" }]);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
  other = createHarness({ clock, dbPath });
}, 60_000);

afterAll(async () => {
  await other?.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the network quote keeps every currency (shipped FX table)", () => {
  test("5 EUR options and 1 JPY at NRT: 6 options, each in its own currency, converted to EUR and ranked by the converted fee", async () => {
    const res = await quote({ ...trip(), currency: "EUR", providers: [eurA.netid, eurB.netid, yen.netid] });
    expect(res.status).toBe(200);
    const { data } = res.body;
    expect(data.options.map((o: { code: string }) => o.code)).toEqual(["eur-50", "eur-60", "yen-car", "eur-70", "eur-80", "eur-90"]);
    const jpy = data.options[2];
    expect(jpy).toMatchObject({ currency: "JPY", converted: { currency: "EUR", rate: 0.0058159823, rateDate: "2024-06-28" } });
    // JPY has no minor unit; EUR has 2: the converted fee is the JPY fee at the rate shown, rounded to cents.
    expect(jpy.fee).toMatch(/^\d+$/);
    expect(jpy.converted.fee).toBe((Math.round(Number(jpy.fee) * 0.0058159823 * 100) / 100).toFixed(2));
    for (const o of data.options.filter((x: { currency: string }) => x.currency === "EUR"))
      expect(o.converted).toEqual({ fee: o.fee, currency: "EUR", rate: 1, rateDate: "2024-06-28" });
    const converted = data.options.map((o: { converted: { fee: string } }) => Number(o.converted.fee));
    expect(converted).toEqual([...converted].sort((a, b) => a - b));
    expect(data).toMatchObject({ currency: "EUR", totalAmount: data.options[0].fee });
    // Nothing left out for its currency; the shipped rates are old.
    expect(codes(data.warnings)).toEqual(["FX_RATES_STALE"]);
    expect(data.warnings[0]).toMatchObject({ rateDate: "2024-06-28" });
  });

  test("a currency the table has no rate for: kept after the others, in its own currency, warning NO_FX_RATE", async () => {
    const res = await quote({ ...trip(), currency: "USD", providers: [dirham.netid, yen.netid] });
    expect(res.status).toBe(200);
    const { options, warnings } = res.body.data;
    // The AED car is far cheaper, yet ranks last: it cannot be compared.
    expect(options.map((o: { code: string }) => o.code)).toEqual(["yen-car", "aed-car"]);
    expect(options[0].converted).toMatchObject({ currency: "USD", rateDate: "2024-06-28" });
    expect(options[1]).toMatchObject({ currency: "AED", fee: expect.stringMatching(/^\d+\.\d\d$/) });
    expect(options[1].converted).toBeUndefined();
    expect(warnings).toContainEqual(expect.objectContaining({ code: "NO_FX_RATE", count: 1, currencies: ["AED"] }));
  });

  test("the integration's displayCurrency converts when the request names none; a bad code is 400 naming the field", async () => {
    const bad = await h.request("PUT", "/api/company/integration", { headers: bearer(maker), body: { displayCurrency: "usd" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: "displayCurrency" })]);
    const set = await h.request("PUT", "/api/company/integration", { headers: bearer(maker), body: { displayCurrency: "GBP" } });
    expect(set.status).toBe(200);
    expect(set.body.data.displayCurrency).toBe("GBP");
    const res = await quote({ ...trip(), providers: [yen.netid, eurB.netid] });
    expect(res.body.data.currency).toBe("GBP");
    for (const o of res.body.data.options) expect(o.converted).toMatchObject({ currency: "GBP", fee: expect.stringMatching(/^\d+\.\d\d$/) });
    // The request's currency wins over the setting.
    const asked = await quote({ ...trip(), currency: "JPY", providers: [eurB.netid] });
    expect(asked.body.data.options[0].converted).toMatchObject({ currency: "JPY", fee: expect.stringMatching(/^\d+$/) });
    expect((await h.request("PUT", "/api/company/integration", { headers: bearer(maker), body: { displayCurrency: null } })).body.data.displayCurrency).toBeNull();
    // Without a display currency: every option kept, ranked by value, nothing shown converted.
    const plain = await quote({ ...trip(), providers: [eurA.netid, yen.netid] });
    expect(plain.body.data.options.map((o: { code: string }) => o.code)).toEqual(["eur-50", "yen-car", "eur-70", "eur-90"]);
    expect(plain.body.data.options.every((o: { converted?: unknown }) => o.converted === undefined)).toBe(true);
    const wrong = await quote({ ...trip(), currency: "XAU" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: "currency" })]);
  });

  test("no rate used, no FX warning: every option already in the display currency, or one currency and none asked", async () => {
    const same = await quote({ ...trip(), currency: "EUR", providers: [eurA.netid] });
    expect(same.body.data.options.map((o: { converted: { rate: number } }) => o.converted.rate)).toEqual([1, 1, 1]);
    expect(same.body.data.warnings).toEqual([]);
    const plain = await quote({ ...trip(), providers: [eurA.netid] });
    expect(plain.body.data).toMatchObject({ currency: "EUR", totalAmount: plain.body.data.options[0].fee, warnings: [] });
  });

  test("booking the JPY option books the provider's price and records the converted amount shown", async () => {
    const made = (await quote({ ...trip(), currency: "EUR", providers: [yen.netid] })).body.data;
    const option = made.options[0];
    const booked = await h.request("POST", `/api/quotes/${made.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: "FX-RES-1", passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
    });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ totalAmount: option.fee });
    expect(booked.body.fees).toEqual([expect.objectContaining({ code: "yen-car", fee: option.fee, currency: "JPY" })]);
    for (const who of [maker, yen]) {
      const read = await h.request("GET", `/api/reservation/${booked.body.transactionId}`, { headers: bearer(who) });
      expect(read.status).toBe(200);
      expect(read.body.data.tripPacket).toMatchObject({ totalAmount: option.fee, convertedAmount: option.converted });
    }
  });
});

describe("docs/fx.md's worked example: a 27,850 JPY trip shown as 161.98 EUR", () => {
  test("quoted in EUR at the shipped rate (171.94 JPY per EUR), booked at 27,850 JPY, read with the 161.98 EUR shown", async () => {
    const made = await quote({ ...trip(), currency: "EUR", providers: [narita.netid] });
    expect(made.status).toBe(200);
    const [option] = made.body.data.options;
    expect(option).toMatchObject({
      code: "narita-van",
      fee: "27850",
      currency: "JPY",
      converted: { fee: "161.98", currency: "EUR", rate: 0.0058159823, rateDate: "2024-06-28" },
    });
    expect(made.body.data).toMatchObject({ currency: "EUR", totalAmount: "161.98" });
    const booked = await h.request("POST", `/api/quotes/${made.body.data.quoteId}/book`, {
      headers: bearer(maker),
      body: { quoteOptionId: option.quoteOptionId, requesterResNo: "FX-RES-NARITA", passengers: [{ firstName: "Ada", lastName: "Lovelace" }] },
    });
    expect(booked.status).toBe(200);
    expect(booked.body).toMatchObject({ totalAmount: "27850", fees: [expect.objectContaining({ code: "narita-van", fee: "27850", currency: "JPY" })] });
    for (const who of [maker, narita]) {
      const read = await h.request("GET", `/api/reservation/${booked.body.transactionId}`, { headers: bearer(who) });
      expect(read.body.data.tripPacket).toMatchObject({
        totalAmount: "27850",
        convertedAmount: { fee: "161.98", currency: "EUR", rate: 0.0058159823, rateDate: "2024-06-28" },
      });
    }
  });
});

describe("GET /api/fx and fx import", () => {
  test("GET /api/fx: the shipped table until an import, for any signed-in company; 401 without a credential", async () => {
    const res = await h.request("GET", "/api/fx", { headers: { token: eurA.token } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ base: "EUR", date: "2024-06-28" });
    expect(res.body.data.rates).toMatchObject({ USD: 1.0705, JPY: 171.94, GBP: 0.84638 });
    expect(Object.keys(res.body.data.rates)).toHaveLength(30);
    expect((await h.request("GET", "/api/fx")).status).toBe(401);
  });

  test("a bad file is refused naming what is wrong, and nothing is saved", async () => {
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "Date, USD, ZZZ, JPY, \n31 February 2024, 1.07, 2.0, -3, \n");
    const refused = await cli("fx", "import", bad);
    expect(refused.code).toBe(1);
    for (const field of ["date:", "rates.ZZZ:", "rates.JPY:"]) expect(refused.stderr).toContain(field);
    const notXml = join(dir, "bad.xml");
    writeFileSync(notXml, "<Envelope><Cube><Cube time='2024-06-28'><Cube currency='USD' rate='1.07'></Cube></Envelope>");
    const broken = await cli("fx", "import", notXml);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("file: is not well-formed XML");
    expect(await h.count("fx_rates")).toBe(0);
  }, 60_000);

  test("the ECB's XML and CSV, as published, import; a new table is in use on both instances within 5 s and ends FX_RATES_STALE; a bad file later leaves it", async () => {
    for (const file of ["ecb-eurofxref-daily.xml", "ecb-eurofxref.csv"]) {
      const done = await cli("fx", "import", join(EXAMPLES, file));
      expect(done.stderr).toBe("");
      expect(done.code).toBe(0);
      expect(done.stdout).toContain("FX table of 2024-06-28 imported: 30 currencies");
      expect(await h.count("fx_rates")).toBe(30);
    }
    const today = join(dir, "today.csv");
    writeFileSync(today, todaysCsv({ USD: "1.1000", JPY: "160.00", GBP: "0.85000" }));
    expect((await cli("fx", "import", today)).code).toBe(0);
    // From the import's end (the CLI process's own start-up is not the service's propagation).
    const started = Date.now();
    const date = new Date(clock.now() * 1000).toISOString().slice(0, 10);
    for (const instance of [h, other]) {
      let seen: any;
      while (Date.now() - started < 5_000) {
        seen = (await instance.request("GET", "/api/fx", { headers: bearer(maker) })).body.data;
        if (seen.date === date) break;
        await Bun.sleep(100);
      }
      expect(seen).toEqual({ base: "EUR", date, rates: { GBP: 0.85, JPY: 160, USD: 1.1 } });
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    // Fresh rates: no FX_RATES_STALE; the JPY car now converts at 1/160.
    // (The day after the booked one: the yen car is held then.)
    const nextDay = trip();
    (nextDay.locations as { pickup: { time: string } }).pickup.time = "2027-04-03T09:00:00";
    const res = await quote({ ...nextDay, currency: "EUR", providers: [yen.netid] });
    expect(res.body.data.options[0].converted).toMatchObject({ rate: 0.00625, rateDate: date });
    expect(codes(res.body.data.warnings)).toEqual([]);
    // A bad file now leaves this table in place.
    const bad = join(dir, "empty.csv");
    writeFileSync(bad, "");
    expect((await cli("fx", "import", bad)).code).toBe(1);
    expect((await h.request("GET", "/api/fx", { headers: bearer(maker) })).body.data.date).toBe(date);
    expect(await h.count("fx_rates")).toBe(3);
  }, 90_000);
});
