import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { ON_POSTGRES } from "../../../support/pg-databases";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * A dispute's step and what it tells the other party are one transaction (docs/settlement.md#states-and-disputes):
 * when the webhook's outbox row cannot be written, the dispute (or its answer) is not saved either, nor its live
 * event; once it can, the dispute, its webhook row and its live event are there together and the webhook arrives.
 */

type Json = Record<string, any>;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let bookwell: Party, acme: Party;
let hooks: ReturnType<typeof startReceiver>;
let transactionId: string;

const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };

/** Makes every outbox insert of `eventType` fail, as a crash or a full disk between the two writes would. */
async function refuseOutbox(eventType: string): Promise<void> {
  if (ON_POSTGRES) {
    await h.rows(`CREATE OR REPLACE FUNCTION outbox_refuses() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox refuses'; END $$`);
    await h.rows(
      `CREATE TRIGGER outbox_refuses BEFORE INSERT ON outbox_messages FOR EACH ROW WHEN (NEW.event_type = '${eventType}') EXECUTE FUNCTION outbox_refuses()`,
    );
  } else {
    await h.rows(`CREATE TRIGGER outbox_refuses BEFORE INSERT ON outbox_messages WHEN NEW.event_type = '${eventType}' BEGIN SELECT RAISE(ABORT, 'outbox refuses'); END`);
  }
}

async function allowOutbox(): Promise<void> {
  await h.rows(ON_POSTGRES ? "DROP TRIGGER outbox_refuses ON outbox_messages" : "DROP TRIGGER outbox_refuses");
}

const outboxRows = (eventType: string) => h.rows<{ body: string; target: string }>(
  "SELECT body, target_netid AS target FROM outbox_messages WHERE event_type = ? AND transaction_id = ?", eventType, transactionId,
);
const liveRows = async (eventType: string) => Number((await h.rows<{ n: number }>("SELECT count(*) AS n FROM live_events WHERE type = ?", eventType))[0].n);
const disputes = () => h.rows<{ id: string; state: string }>("SELECT id, state FROM statement_disputes WHERE transaction_id = ?", transactionId);

async function received(type: string): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = hooks.received.find((r) => r.json?.type === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} webhook`);
    await Bun.sleep(20);
  }
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [bookwell, acme] = await Promise.all([party(h, "SDN-BOOKWELL", "CO"), party(h, "SDN-ACME", "IO")]);
  hooks = startReceiver();
  const webhookUrl = (who: string) => `${hooks.url}/${who}`;
  expect((await integrate(h, acme, { webhookUrl: webhookUrl("acme"), webhookFormat: "events" })).status).toBe(200);
  expect((await integrate(h, bookwell, { webhookUrl: webhookUrl("bookwell"), webhookFormat: "events" })).status).toBe(200);
  const car = { slug: "sdn-acme-van", type: "VAN", maxPassengers: 6, maxLuggage: 6, minimumRate: "150.00", hourlyRate: "1", currency: "USD" };
  await insertFleet(h, acme.netid, [car]);
  h.services.worker.start();
  const time = new Date((clock.now() + 3 * 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  const trip = {
    runType: "Airport",
    passengerCount: "2",
    passengers: [{ firstName: "Ada", lastName: "King" }],
    locations: { pickup: { locationType: "airport", address: "SFO", time }, dropOff: CUPERTINO },
  };
  const affiliateReservation = { requesterId: bookwell.netid, requesterResNo: nextResNo(), providerId: acme.netid, action: "NEW" };
  expect((await sendTrip(h, bookwell, { ...trip, reservationType: "QUOTE", affiliateReservation })).status).toBe(200);
  const booked = await sendTrip(h, bookwell, { ...trip, reservationType: "REGULAR", affiliateReservation });
  expect(booked.status).toBe(200);
  transactionId = booked.body.transactionId;
  expect((await providerUpdate(h, acme, transactionId, { status: "CONFIRMED" })).status).toBe(200);
  expect((await providerUpdate(h, acme, transactionId, { status: "CLOSE" })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  hooks.stop();
  await h.close();
});

describe("a dispute and its webhook are written together", () => {
  test("an outbox write that fails undoes the dispute; one that succeeds is there with it and is sent", async () => {
    const raise = () => h.request("POST", "/api/statements/disputes", { headers: { token: bookwell.token }, body: { transactionId, reason: "No toll" } });
    await refuseOutbox("statement.disputed");
    expect((await raise()).status).toBe(500);
    expect(await disputes()).toEqual([]);
    expect(await outboxRows("statement.disputed")).toEqual([]);
    expect(await liveRows("statement.disputed")).toBe(0);
    await allowOutbox();

    const raised = await raise();
    expect(raised.status).toBe(200);
    const id = raised.body.data.id as string;
    expect(await disputes()).toEqual([{ id, state: "OPEN" }]);
    const [row] = await outboxRows("statement.disputed");
    expect(row.target.toLowerCase()).toBe(acme.netid.toLowerCase());
    expect((JSON.parse(row.body) as Json).data.id).toBe(id);
    expect(await liveRows("statement.disputed")).toBe(1);
    expect((await received("statement.disputed")).json.data.id).toBe(id);
  });

  test("an answer whose webhook cannot be written leaves the dispute open; then it ends it and is sent", async () => {
    const [{ id }] = await disputes();
    const answer = () => h.request("POST", `/api/statements/disputes/${id}/answer`, { headers: { token: acme.token }, body: { answer: "It was on the route" } });
    await refuseOutbox("statement.dispute_answered");
    expect((await answer()).status).toBe(500);
    expect(await disputes()).toEqual([{ id, state: "OPEN" }]);
    expect(await liveRows("statement.dispute_answered")).toBe(0);
    await allowOutbox();

    expect((await answer()).status).toBe(200);
    expect(await disputes()).toEqual([{ id, state: "ANSWERED" }]);
    expect(await outboxRows("statement.dispute_answered")).toHaveLength(1);
    expect(await liveRows("statement.dispute_answered")).toBe(1);
    expect((await received("statement.dispute_answered")).json.data).toMatchObject({ id, state: "ANSWERED", answer: "It was on the route" });
  });
});
