import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { ADA, bearer, iso, jfkSedans, jfkTrip } from "../../../support/jfk";
import { party, sendTrip, type Party } from "../../../support/trips";
import type { VehicleHolds } from "../../../../domain/fleet/holds";

/**
 * Blackouts are bounded and read by provider (docs/availability.md#how-many-blackouts,
 * docs/availability.md#what-a-quote-reads), through HTTP on both databases: at most 200 live blackouts per vehicle
 * and 10,000 per company (then 429 BLACKOUT_LIMIT, nothing saved, also when adds race), and a quote reads the holds
 * of the providers it may offer only, never those of a provider holding thousands of blackouts.
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, flooder: Party, quiet: Party;
const DAY = 86_400;

/** `n` blackouts of `slug` written straight into the database (a thousand rows a statement), ending `days` from now. */
async function stored(slug: string, provider: string, n: number, days = 30) {
  const now = clock.now();
  for (let done = 0; done < n; done += 1000) {
    const rows = Array.from({ length: Math.min(1000, n - done) }, (_, i) => {
      const from = now + DAY + (done + i) * 60;
      return `('${slug}-b${done + i}', '${slug}', '${provider}', 'BLACKOUT', NULL, ${from}, ${now + days * DAY + done + i}, NULL, ${now})`;
    });
    await h.rows(
      `INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at) VALUES ${rows.join(", ")}`,
    );
  }
}

const addBlackout = (who: Party, slug: string, days = 1) =>
  h.request("POST", `/api/fleet/${slug}/blackouts`, {
    headers: bearer(who),
    body: { from: iso(clock.now() + days * DAY), to: iso(clock.now() + days * DAY + 3600), reason: "service" },
  });

const blackoutsOf = async (slug: string) =>
  Number((await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM vehicle_holds WHERE slug = ? AND kind = 'BLACKOUT'", slug))[0].n);

beforeAll(async () => {
  h = createHarness({ clock });
  [requester, flooder, quiet] = await Promise.all([party(h, "BL-BOOK", "CO"), party(h, "BL-FLOOD", "IO"), party(h, "BL-QUIET", "IO")]);
  // 55 vehicles: the company limit (10,000) is past what 50 vehicles at 200 each hold.
  await jfkSedans(h, flooder.netid, Array.from({ length: 55 }, (_, i) => `bl-flood-${i}`));
  await jfkSedans(h, quiet.netid, ["bl-quiet-1", "bl-quiet-2"]);
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("at most 200 live blackouts a vehicle", () => {
  test("the 201st is 429 BLACKOUT_LIMIT with Retry-After, nothing saved; ended ones do not count; after a removal there is room", async () => {
    const slug = "bl-flood-0";
    await stored(slug, flooder.netid, 199);
    // Blackouts already ended are not live: they take no place.
    await h.rows(
      "INSERT INTO vehicle_holds (id, slug, provider_netid, kind, transaction_id, starts_at, ends_at, reason, created_at) " +
        "VALUES (?, ?, ?, 'BLACKOUT', NULL, ?, ?, NULL, ?)",
      "bl-past", slug, flooder.netid, clock.now() - 2 * DAY, clock.now() - DAY, clock.now() - 3 * DAY,
    );
    const last = await addBlackout(flooder, slug);
    expect(last.status).toBe(201);
    const refused = await addBlackout(flooder, slug);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("BLACKOUT_LIMIT");
    expect(refused.body.message).toContain(`The vehicle ${slug} keeps 200 live blackouts`);
    // A place frees when the earliest live blackout ends: the one added through HTTP, a day and an hour from now.
    expect(Number(refused.headers.get("retry-after"))).toBe(DAY + 3600);
    expect(await blackoutsOf(slug)).toBe(201);
    // Another vehicle of the same company has room.
    expect((await addBlackout(flooder, "bl-flood-1")).status).toBe(201);
    // Removing one makes room for one.
    expect((await h.request("DELETE", `/api/fleet/${slug}/blackouts/${last.body.data.id}`, { headers: bearer(flooder) })).status).toBe(200);
    expect((await addBlackout(flooder, slug)).status).toBe(201);
    expect((await addBlackout(flooder, slug)).status).toBe(429);
  });

  test("ten adds racing for the last five places: exactly five are saved", async () => {
    const slug = "bl-flood-2";
    await stored(slug, flooder.netid, 195);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => addBlackout(flooder, slug, 2 + i)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 429, 429, 429, 429, 429]);
    expect(await blackoutsOf(slug)).toBe(200);
  });
});

describe("at most 10,000 live blackouts a company", () => {
  test("past 10,000 over its vehicles the next is 429 BLACKOUT_LIMIT naming the company, nothing saved", async () => {
    const [{ n }] = await h.rows<{ n: number | string }>(
      "SELECT count(*) AS n FROM vehicle_holds WHERE provider_netid = ? AND kind = 'BLACKOUT' AND ends_at > ?",
      flooder.netid,
      clock.now(),
    );
    // Fill vehicles 3… to 9,999 live blackouts in all, at most 200 each.
    let missing = 9_999 - Number(n);
    for (let v = 3; missing > 0; v++) {
      const take = Math.min(200, missing);
      await stored(`bl-flood-${v}`, flooder.netid, take);
      missing -= take;
    }
    const roomy = "bl-flood-54";
    expect(await blackoutsOf(roomy)).toBe(0);
    expect((await addBlackout(flooder, roomy)).status).toBe(201);
    const refused = await addBlackout(flooder, roomy);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("BLACKOUT_LIMIT");
    expect(refused.body.message).toContain("Your company keeps 10000 live blackouts");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await blackoutsOf(roomy)).toBe(1);
    // Another company is not bounded by this one's blackouts.
    expect((await addBlackout(quiet, "bl-quiet-2", 40)).status).toBe(201);
  }, 60_000);
});

describe("a quote reads the holds of the providers it may offer only", () => {
  /** The providers whose holds the quote path reads, from whatever the hold store answers. */
  function watchReads(): { providers: Set<string>; rows: number; stop(): void } {
    const index = h.services.availability.holds as unknown as { store: VehicleHolds };
    const store = index.store;
    const seen = { providers: new Set<string>(), rows: 0, stop: () => (index.store = store) };
    index.store = new Proxy(store, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const answer = await value.apply(target, args);
          if (Array.isArray(answer))
            for (const row of answer as Array<{ provider?: string }>) {
              seen.rows++;
              if (row.provider !== undefined) seen.providers.add(row.provider.toUpperCase());
            }
          return answer;
        };
      },
    });
    return seen;
  }

  const trip = (days: number) => jfkTrip(iso(clock.now() + days * DAY).slice(0, 19));

  test("beside another provider's 10,000 blackouts, a QUOTE and a network quote of the quiet one read none; its own holds count", async () => {
    // The quiet provider's own blackout over the trip's day: its quotes still leave that vehicle out.
    const own = await h.request("POST", "/api/fleet/bl-quiet-1/blackouts", {
      headers: bearer(quiet),
      body: { from: iso(clock.now() + 8 * DAY), to: iso(clock.now() + 10 * DAY) },
    });
    expect(own.status).toBe(201);
    const flooded = Number((await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM vehicle_holds WHERE provider_netid = ?", flooder.netid))[0].n);
    expect(flooded).toBeGreaterThan(9_000);
    // The copies a second old at most: after that, each quote reads what it needs.
    clock.advance(2);
    const reads = watchReads();
    try {
      const single = await sendTrip(h, requester, {
        reservationType: "QUOTE",
        ...trip(9),
        passengers: ADA,
        affiliateReservation: { requesterId: requester.netid, requesterResNo: "BL-Q-1", providerId: quiet.netid, action: "NEW" },
      });
      expect(single.status).toBe(200);
      expect(single.body.fees.map((f: { code: string }) => f.code)).toEqual(["bl-quiet-2"]);
      clock.advance(2);
      const network = await h.request("POST", "/api/quotes", { headers: bearer(requester), body: { ...trip(9), providers: [quiet.netid] } });
      expect(network.status).toBe(200);
      expect(network.body.data.options.map((o: { code: string }) => o.code)).toEqual(["bl-quiet-2"]);
      expect(network.body.data.warnings).toContainEqual(expect.objectContaining({ code: "VEHICLES_BUSY", count: 1 }));
      expect([...reads.providers]).toEqual([quiet.netid.toUpperCase()]);
      expect(reads.rows).toBeLessThan(10);
    } finally {
      reads.stop();
    }
  });

  test("the flooding provider's own quotes still leave its blacked-out vehicles out", async () => {
    clock.advance(2);
    // Most of its vehicles are blacked out for weeks from tomorrow on (the rows stored above); a few are free.
    const res = await h.request("POST", "/api/quotes", { headers: bearer(requester), body: { ...trip(1), providers: [flooder.netid] } });
    expect(res.status).toBe(200);
    const offered = res.body.data.options.map((o: { code: string }) => o.code);
    expect(offered).not.toContain("bl-flood-0");
    expect(offered).toContain("bl-flood-53");
    expect(res.body.data.warnings).toContainEqual(expect.objectContaining({ code: "VEHICLES_BUSY" }));
  });
});
