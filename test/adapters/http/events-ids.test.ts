// Event ids of GET /api/events do not reveal other tenants' activity (docs/events.md, issue 37 N9), over real
// sockets: they are opaque, company A's ids say nothing of how many events company B made meanwhile, an id is
// worth nothing to another company, and Last-Event-ID resume goes on working.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { party, regularTrip, sendTrip, type Party } from "../../support/trips";
import { SseClient } from "../../support/sse";

let h: Harness;
let server: { stop(force?: boolean): unknown } | undefined;
let base = "";
const clients: SseClient[] = [];

beforeAll(async () => {
  h = createHarness();
  const app = h.app.listen({ hostname: "127.0.0.1", port: 0 });
  server = app.server ?? undefined;
  base = `http://127.0.0.1:${app.server!.port}`;
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  server?.stop(true);
  await h.close();
});

async function stream(who: Party, lastEventId?: string): Promise<SseClient> {
  const headers: Record<string, string> = { authorization: `Bearer ${who.jwt}` };
  if (lastEventId) headers["last-event-id"] = lastEventId;
  const client = await SseClient.open(`${base}/api/events`, headers);
  clients.push(client);
  expect(client.status).toBe(200);
  await client.until(() => client.comments.includes("connected"), 5000, "the connected comment");
  return client;
}

async function trip(from: Party, to: Party): Promise<string> {
  const sent = await sendTrip(h, from, regularTrip(from.netid, to.netid));
  expect(sent.status).toBe(200);
  return sent.body.transactionId;
}

describe("event ids", () => {
  test("are opaque: A's ids do not move with B's events, B cannot use A's ids, and A resumes with its own", async () => {
    const suffix = `${Date.now() % 100000}`;
    const [a, aPartner, b, bPartner] = await Promise.all([
      party(h, `IDS-A-${suffix}`, "CO"),
      party(h, `IDS-AP-${suffix}`, "IO"),
      party(h, `IDS-B-${suffix}`, "CO"),
      party(h, `IDS-BP-${suffix}`, "IO"),
    ]);
    const onA = await stream(a);
    const onB = await stream(b);
    await trip(a, aPartner);
    await onA.until(() => onA.events.length === 1, 5000, "A's first event");
    // B is busy meanwhile.
    for (let i = 0; i < 5; i++) await trip(b, bPartner);
    await onB.until(() => onB.events.length === 5, 5000, "B's five events");
    await trip(a, aPartner);
    await onA.until(() => onA.events.length === 2, 5000, "A's second event");

    const [first, second] = onA.events.map((e) => e.id!);
    for (const id of [first, second, ...onB.events.map((e) => e.id!)]) {
      // Not a number that counts the log: 22 base64url characters (an AES block).
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Number.isNaN(Number(id))).toBe(true);
    }
    // Without B's five events in between A's ids would be just as they are: nothing in them counts B's activity.
    expect(first).not.toBe(second);

    // An id of A's is nothing to B: its stream starts from now with a reset.
    const bWithAsId = await stream(b, first);
    await bWithAsId.until(() => bWithAsId.events.length >= 1, 5000, "reset");
    expect(bWithAsId.events[0]).toMatchObject({ event: "reset", json: { reason: "UNKNOWN_EVENT_ID" } });
    expect(bWithAsId.events[0].id).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // A resumes after its first event: its second arrives again, and nothing of B's.
    const resumed = await stream(a, first);
    await resumed.until(() => resumed.events.length >= 1, 5000, "the missed event");
    await Bun.sleep(300);
    expect(resumed.events.map((e) => e.id)).toEqual([second]);
    expect(resumed.of("reset")).toEqual([]);
  });
});
