import { afterEach, expect, test } from "bun:test";
import { createHarness } from "../../support/harness";

// CONTRACT §21.8: one company's backlog cannot hide another company's due message from the worker (both databases).
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("a read of due messages offers at most 16 of one company, so a later company's message is in the first page", async () => {
  const h = createHarness();
  cleanups.push(() => h.close());
  const at = Date.now() / 1000 - 10;
  const message = (targetNetid: string, n: number) => ({
    eventId: crypto.randomUUID(),
    channel: "delivery" as const,
    eventType: "trip.new",
    transactionId: `tx-${targetNetid}-${n}`,
    targetNetid,
    url: "http://127.0.0.1:9/farm-in",
    body: "{}",
  });
  for (let n = 0; n < 600; n++) await h.services.outbox.enqueue(message("TARPIT", n), at);
  const healthy = await h.services.outbox.enqueue(message("HEALTHY", 0), at + 5);
  const page = await h.services.outbox.due(Date.now() / 1000, 64, 0);
  expect(page.filter((m) => m.targetNetid === "TARPIT")).toHaveLength(16);
  expect(page.map((m) => m.id)).toContain(healthy.id);
  // In due order still: the tarpit's oldest first, the healthy message after them.
  expect(page.at(-1)!.id).toBe(healthy.id);
});
