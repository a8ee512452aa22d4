import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../../support/harness";
import { lookup, parties, providerUpdate, regularTrip, sendTrip } from "../../../support/trips";
import { MAX_CHANGE_LOGS, TRIMMED } from "../../../../domain/history-cap";

let h: Harness;
afterEach(() => h?.close());

describe("a booking's history is bounded", () => {
  test("a provider updating a booking again and again keeps it at the cap, oldest dropped and counted", async () => {
    h = createHarness();
    const { requester, provider } = await parties(h);
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    // The same status over and over, each with new details: one changeLogs entry each.
    for (let i = 0; i < MAX_CHANGE_LOGS + 20; i++) expect((await providerUpdate(h, provider, id, { status: "CONFIRMED", providerNote: `note ${i}` })).status).toBe(200);
    const logs = (await lookup(h, requester, id)).body.data.tripPacket.changeLogs as Array<{ changeSource: string; changeDesc: string }>;
    expect(logs).toHaveLength(MAX_CHANGE_LOGS);
    expect(logs[0].changeSource).toBe(TRIMMED);
    expect(Number(/^(\d+) earlier changes not kept$/.exec(logs[0].changeDesc)?.[1])).toBeGreaterThanOrEqual(20);
    expect(logs.at(-1)!.changeDesc).toBe("providerNote changed");
    expect((await lookup(h, requester, id)).body.data.tripPacket.affiliateReservation.providerNote).toBe(`note ${MAX_CHANGE_LOGS + 19}`);
  }, 30_000);
});
