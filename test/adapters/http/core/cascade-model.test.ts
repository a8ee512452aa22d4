import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { integrate, lookup, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";
import { bearer, iso, jfkSedan } from "../../../support/jfk";
import { watchOffers } from "../../../../domain/usecases/offer-watch";

/**
 * The cascade's model through HTTP, a few runs on both databases (the many runs are the domain's,
 * test/domain/usecases/offer-watch.property.test.ts): random declines, give-backs and lapses over random pickups, each
 * step followed by the watch; after every step the requester's read has exactly one current provider (the last
 * offer's, holding the one vehicle held), no offer made after pickup − 30 min, no provider offered twice, and the
 * current provider's read shows neither the fallback nor another provider (docs/terms.md#deadlines-within-the-trip,
 * docs/terms.md#who-sees-what).
 */

const clock = new ManualClock(Math.floor(Date.now() / 1000));
const rewind = (seconds: number) => (clock.t = Math.floor(Date.now() / 1000) - seconds);
let h: Harness;
let maker: Party;
const providers: Party[] = [];
let resNo = 0;

type Action = "REJECT" | "GIVE_BACK" | "LAPSE" | "CONFIRM";
const run = fc.record({
  lead: fc.integer({ min: 35 * 60, max: 3 * 3600 }),
  steps: fc.array(fc.constantFrom<Action>("REJECT", "GIVE_BACK", "LAPSE", "CONFIRM"), { minLength: 1, maxLength: 4 }),
});

async function watch() {
  for (let i = 0; ; i++) {
    const pass = await watchOffers(h.services.offers, (err, id) => console.error("offer watch failed", id, err));
    if (pass.claimed > 0 || i >= 10) return pass;
    await Bun.sleep(20);
  }
}

/** What must hold after every step, read through HTTP and the holds table. */
async function holds(id: string, pickupAt: number) {
  const data = (await lookup(h, maker, id)).body.data;
  const offers = data.offers as Array<{ provider: string; at: string; reason?: string }>;
  expect(data.providerId).toBe(offers.at(-1)!.provider);
  expect(new Set(offers.map((o) => o.provider)).size).toBe(offers.length);
  for (const o of offers.slice(1)) expect(Date.parse(o.at) / 1000).toBeLessThanOrEqual(pickupAt - 30 * 60);
  if (["BOOKING_REQUEST", "PENDING"].includes(data.lastStatus)) {
    const offeredAt = Date.parse(offers.at(-1)!.at) / 1000;
    expect(Date.parse(data.acceptBy) / 1000).toBeLessThanOrEqual(Math.max(pickupAt - 30 * 60, offeredAt + 5 * 60));
  }
  const held = await h.rows<{ provider: string }>("SELECT provider_netid AS provider FROM vehicle_holds WHERE transaction_id = ?", id);
  const live = ["BOOKING_REQUEST", "PENDING", "CONFIRMED"].includes(data.lastStatus);
  expect(held.map((r) => r.provider)).toEqual(live ? [data.providerId] : held.length ? [data.providerId] : []);
  const current = providers.find((p) => p.netid === data.providerId)!;
  const theirs = JSON.stringify((await lookup(h, current, id)).body);
  expect(theirs).not.toContain("fallback");
  for (const o of offers.slice(0, -1)) expect(theirs).not.toContain(o.provider);
  return data;
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  maker = await party(h, "MODEL-BOOK", "CO");
  for (const [i, name] of ["MODEL-ALPHA", "MODEL-BRAVO", "MODEL-CHARLIE", "MODEL-DELTA"].entries()) {
    const p = await party(h, name, "IO");
    providers.push(p);
    await jfkSedan(h, p.netid, `${name.toLowerCase()}-car`, `${50 + i * 10}.00`);
    expect((await integrate(h, p, {})).status).toBe(200);
  }
  h.services.fleetIndex.fleetChanged();
  await h.indexed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("the cascade's model through HTTP (a few runs)", () => {
  test("random declines, give-backs and lapses: one current provider holding the one vehicle, no offer after pickup − 30 min, nothing leaked", async () => {
    await fc.assert(
      fc.asyncProperty(run, async ({ lead, steps }) => {
        rewind(3 * 3600);
        const pickupAt = clock.now() + lead;
        const trip = {
          passengerCount: "2",
          locations: {
            pickup: { locationType: "airport", address: "JFK", time: iso(pickupAt) },
            dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
          },
        };
        const q = await h.request("POST", "/api/quotes", { headers: bearer(maker), body: trip });
        expect(q.status).toBe(200);
        const requesterResNo = `MODEL-${++resNo}`;
        const booked = await h.request("POST", `/api/quotes/${q.body.data.quoteId}/book`, {
          headers: bearer(maker),
          body: { quoteOptionId: q.body.data.options[0].quoteOptionId, requesterResNo, passengers: [{ firstName: "A", lastName: "B" }], fallback: { maxFee: "900.00" } },
        });
        expect(booked.status).toBe(200);
        const id = booked.body.transactionId as string;
        let data = await holds(id, pickupAt);
        for (const step of steps) {
          const current = providers.find((p) => p.netid === data.providerId)!;
          if (step === "LAPSE") clock.t = Math.max(clock.t, Date.parse(data.acceptBy) / 1000 + 1);
          else if (step === "REJECT") await providerUpdate(h, current, id, { status: "REJECT" });
          else if (step === "CONFIRM") await providerUpdate(h, current, id, { status: "CONFIRMED" });
          else {
            await providerUpdate(h, current, id, { status: "CONFIRMED" });
            await providerUpdate(h, current, id, { status: "CANCEL" });
          }
          await watch();
          data = await holds(id, pickupAt);
        }
        // The requester lets the vehicles go for the next run.
        if (!["REJECT", "CANCEL"].includes(data.lastStatus))
          await sendTrip(h, maker, { affiliateReservation: { requesterId: maker.netid, requesterResNo, providerId: data.providerId, action: "CANCEL" } });
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
