import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { createHarness, ManualClock, TEST_JWT_SECRET, type Harness } from "../../../support/harness";
import { runCli, tempDir } from "../../../support/process";
import { insertFleet, party, type Party } from "../../../support/trips";

/**
 * docs/security.md#requester-only-companies: a company registered to book rides (coType CO) offers none. It cannot
 * add vehicles or a rate card (403 NOT_AN_OPERATOR, nothing saved, through HTTP and the CLI), and vehicles it holds
 * from before are set inactive at the next start, so no quote or search ever offers them.
 */
const clock = new ManualClock(Math.floor(Date.now() / 1000));
const dbPath = join(tempDir("tripswitch-co-"), "co.sqlite");
let h: Harness;
let booker: Party, operator: Party, maker: Party;

const JFK = { lat: 40.6413, lon: -73.7781 };
const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const VEHICLE = { type: "SEDAN", name: "Booker Sedan", maxPassengers: 4, maxLuggage: 4, lat: JFK.lat, lon: JFK.lon, airports: ["JFK"], minimum_rate: 1, hourly_rate: 1 };
const CARD = { currency: "USD", distance: [{ id: "d", base: "10.00", perKm: "1.00" }] };
const quote = () =>
  h.request("POST", "/api/quotes", {
    headers: bearer(maker),
    body: {
      passengerCount: "2",
      locations: {
        pickup: { locationType: "airport", address: "JFK", time: "2027-03-15T08:00:00" },
        dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
      },
    },
  });
const offeredBy = async () => {
  const res = await quote();
  expect(res.status).toBe(200);
  return [...new Set((res.body.data.options as Array<{ provider: { netid: string } }>).map((o) => o.provider.netid))].sort();
};
const searchedBy = async () => {
  const res = await h.request("GET", "/api/search/fleet?airports=jfk", { headers: bearer(maker) });
  expect(res.status).toBe(200);
  return [...new Set((res.body.data.items as Array<{ netid: string }>).map((i) => i.netid))].sort();
};

beforeAll(async () => {
  h = createHarness({ clock, dbPath });
  [booker, operator, maker] = await Promise.all([party(h, "CO-BOOKER", "CO"), party(h, "CO-OPERATOR", "IO"), party(h, "CO-MAKER", "CO")]);
  await insertFleet(h, operator.netid, [{ slug: "operator-sedan", maxPassengers: 4, maxLuggage: 4, lat: JFK.lat, lon: JFK.lon, airports: ["JFK"], hourlyRate: "80.00" }]);
});

afterAll(async () => {
  await h.close();
});

describe("a requester-only (CO) company offers nothing", () => {
  test("adding a vehicle, importing a fleet or setting a rate card is 403 NOT_AN_OPERATOR, and nothing is saved", async () => {
    const add = await h.request("POST", "/api/fleet", { headers: bearer(booker), body: VEHICLE });
    expect(add.status).toBe(403);
    expect(add.body).toMatchObject({ success: false, code: "NOT_AN_OPERATOR" });
    expect(add.body.message).toContain("coType CO");
    // Refused before the body is judged: an invalid vehicle gets the same answer.
    expect((await h.request("POST", "/api/fleet", { headers: bearer(booker), body: { ...VEHICLE, maxPassengers: 0 } })).body.code).toBe("NOT_AN_OPERATOR");
    for (const mode of ["upsert", "replace", "append"]) {
      const imported = await h.request("POST", `/api/fleet/import?mode=${mode}`, { headers: bearer(booker), body: [VEHICLE] });
      expect(imported.status).toBe(403);
      expect(imported.body.code).toBe("NOT_AN_OPERATOR");
    }
    const card = await h.request("PUT", "/api/company/rates", { headers: bearer(booker), body: CARD });
    expect(card.status).toBe(403);
    expect(card.body.code).toBe("NOT_AN_OPERATOR");

    expect((await h.request("GET", "/api/fleet", { headers: bearer(booker) })).body.data.total).toBe(0);
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(booker) })).status).toBe(404);
    await h.indexed();
    expect(await offeredBy()).toEqual([operator.netid]);
    expect(await searchedBy()).toEqual([operator.netid]);
    // An operator adds and prices as before.
    expect((await h.request("POST", "/api/fleet", { headers: bearer(operator), body: VEHICLE })).status).toBe(200);
    expect((await h.request("PUT", "/api/company/rates", { headers: bearer(operator), body: CARD })).status).toBe(200);
  });

  test("the CLI refuses too: fleet import and rates import exit 1 naming the reason, nothing saved", async () => {
    const dir = tempDir("tripswitch-co-cli-");
    const fleetFile = join(dir, "fleet.json");
    const cardFile = join(dir, "card.json");
    writeFileSync(fleetFile, JSON.stringify([VEHICLE]));
    writeFileSync(cardFile, JSON.stringify(CARD));
    const env = { ...h.cliEnv, JWT_SECRET: TEST_JWT_SECRET };
    const fleet = await runCli(["fleet", "import", booker.netid, fleetFile], env);
    expect(fleet.code).toBe(1);
    expect(fleet.stderr).toContain("coType CO");
    const rates = await runCli(["rates", "import", booker.netid, cardFile], env);
    expect(rates.code).toBe(1);
    expect(rates.stderr).toContain("coType CO");
    expect((await h.request("GET", "/api/fleet", { headers: bearer(booker) })).body.data.total).toBe(0);
    expect((await h.request("GET", "/api/company/rates", { headers: bearer(booker) })).status).toBe(404);
  }, 60_000);

  test("vehicles it added before are set inactive at the next start: never offered or found; it may delete them but not offer them again", async () => {
    // Written as an older version let a CO company add them (straight into storage).
    await insertFleet(h, booker.netid, [{ slug: "booker-old-sedan", maxPassengers: 4, maxLuggage: 4, lat: JFK.lat, lon: JFK.lon, airports: ["JFK"], hourlyRate: "1.00" }]);
    expect(await offeredBy()).toContain(booker.netid);
    await h.close();

    h = createHarness({ clock, dbPath });
    // As `serve` starts: the storage's start-up work, then the first index build.
    await h.services.started;
    await h.services.fleetIndex.rebuildNow();
    await h.indexed();
    expect(await offeredBy()).toEqual([operator.netid]);
    expect(await searchedBy()).toEqual([operator.netid]);
    const listed = await h.request("GET", "/api/fleet", { headers: bearer(booker) });
    expect(listed.body.data.items.map((e: { slug: string; active: boolean }) => [e.slug, e.active])).toEqual([["booker-old-sedan", false]]);

    const reactivate = await h.request("PATCH", "/api/fleet/booker-old-sedan", { headers: bearer(booker), body: { active: true } });
    expect(reactivate.status).toBe(403);
    expect(reactivate.body.code).toBe("NOT_AN_OPERATOR");
    const rename = await h.request("PATCH", "/api/fleet/booker-old-sedan", { headers: bearer(booker), body: { name: "Renamed" } });
    expect(rename.body.code).toBe("NOT_AN_OPERATOR");
    expect((await h.request("PATCH", "/api/fleet/booker-old-sedan", { headers: bearer(booker), body: { active: false } })).status).toBe(200);
    expect((await h.request("DELETE", "/api/fleet/booker-old-sedan", { headers: bearer(booker) })).status).toBe(200);
    await h.indexed();
    expect(await offeredBy()).toEqual([operator.netid]);
  });
});
