import { describe, expect, test } from "bun:test";
import { runPart } from "./smoke-support";

describe("benchmark smoke run", () => {
  test("search: in-process queries against the brute-force scan, every variant", async () => {
    const out = await runPart("search");
    expect(out).toContain("index count + first page at 2,000, no types, no q");
    expect(out).toMatch(/index count \+ first page at 2,000, 4 of the queries only .*queries\/s[\s\S]*baseline the 2,000 queries above/);
    for (const variant of ["no types, no q", "types", "q", "types + q"]) expect(out).toContain(`use case qps at 2,000, ${variant}:`);
    expect(out).toContain("baseline brute-force haversine scan");
  });

  test("events: open event streams under booking changes against the same load without streams", async () => {
    const out = await runPart("events");
    expect(out).toMatch(/event delivery p99 \(change sent → its event on each of 20 streams\), 10 changes\/s for 2 s: [\d.,]+ ms/);
    expect(out).toContain("baseline no streams");
    expect(out).toMatch(/service resident memory \(peak\) with 20 open streams.*MiB/);
  });

  test("growth: one company flooding its stores against its bounds, a neighbour's normal writes as the baseline", async () => {
    const out = await runPart("growth");
    expect(out).toMatch(/database growth while one company floods for 3 s at its budgets.*MB/);
    expect(out).toMatch(/flooder's live events [\d.,]+ MB \(bound 50\.0 MB: bodies [\d.,]+ MB, replaced booking versions -?[\d.,]+ MB\)/);
    expect(out).toContain("baseline the neighbour's normal bookings");
  });

  test("tracking: positions pushed by the bookings' provider against one upsert per transaction", async () => {
    const out = await runPart("tracking");
    expect(out).toMatch(/positions absorbed, 300 bookings pushing once a second, GPSgrab batches of 100 .*positions\/s/);
    expect(out).toMatch(/positions absorbed, 300 bookings, one saveGPScache per position.*positions\/s/);
    expect(out).toContain("baseline naive: one position upserted per transaction (FULL)");
  });

  test("places: quotes with the drop-off and stops placed by city against the same by coordinates", async () => {
    const out = await runPart("places");
    for (const what of ["the drop-off placed by its city", "the drop-off and two stops placed by their city"]) {
      expect(out).toContain(`[places] QUOTE to a provider with 2,000 vehicles, ${what}`);
      expect(out).toContain(`[places] POST /api/quotes, ${what}`);
    }
    expect(out).toContain("baseline the same trip by coordinates");
  });

  test("blackout-flood: another provider's quotes beside a provider holding blackouts against a quiet run", async () => {
    const out = await runPart("blackout-flood");
    expect(out).toMatch(/another provider's QUOTE \(sendTrip\) p99 beside a provider holding 100 blackouts .*: [\d.,]+ ms/);
    expect(out).toMatch(/another provider's network quote \(POST \/api\/quotes naming it\) p99 beside a provider holding 100 blackouts: [\d.,]+ ms/);
    expect(out).toContain("baseline the same QUOTEs, the flooder holding one blackout (quiet)");
    expect(out).toMatch(/40 blackouts removed and added back by it/);
  });

  test("quote, quote-cards, network-quote, network-quote-cards: the quote paths with and without cards, bounds lifted", async () => {
    const quote = await runPart("quote");
    expect(quote).toMatch(/\[quote\] QUOTE latency, provider with 2,000 vehicles everywhere .*: [\d.,]+ ms/);
    expect(quote).toContain("baseline the same QUOTE to a provider with 50 vehicles");
    expect(await runPart("quote-cards")).toMatch(/\[quote-cards\] QUOTE latency with a rate card, provider with 2,000 vehicles on the busy airports .*: [\d.,]+ ms/);
    expect(await runPart("network-quote")).toMatch(/\[network-quote\] POST \/api\/quotes p50 at 2,000 vehicles, 50 providers .*: [\d.,]+ ms/);
    expect(await runPart("network-quote-cards")).toMatch(/\[network-quote-cards\] POST \/api\/quotes p50 with rate cards at 2,000 vehicles, 50 providers.*: [\d.,]+ ms/);
  });

  test("offers: lapses and cascades in one watch pass, from requesters within their hold limits", async () => {
    const out = await runPart("offers");
    expect(out).toMatch(/\[offers\] lapses per second, one watch pass over 300 open requests past acceptBy: [\d.,]+ lapses\/s/);
    expect(out).toMatch(/\[offers\] cascades per second .*, 30 bookings: [\d.,]+ moves\/s/);
    expect(out).toMatch(/\[offers\] delay past acceptBy, watch every 5 s: p99 .*: [\d.,]+ s/);
  });

  test("flights: a status feed moving pickups, each UPDATE delivered to the provider's endpoint, against requester UPDATEs", async () => {
    const out = await runPart("flights");
    expect(out).toMatch(/\[flights\] SQLite: flight statuses answered per second, each moving a pickup \(40 of 300 bookings with flights\): [\d.,]+ moves\/s/);
    expect(out).toMatch(/\[flights\] SQLite: moved pickups' UPDATEs delivered per second .*: [\d.,]+ moves\/s/);
    expect(out).toMatch(/\[flights\] SQLite: status POST → provider's UPDATE delivered, p99 \(median \d+ ms\) of 40: [\d.,]+ ms/);
    expect(out).toContain("baseline requester UPDATEs moving the pickup (sendTrip), same store, same delivery");
    expect(out).toContain("0 deliveries missing");
  });

  test("booking-race and fair-delivery: one vehicle raced by 8 bookings; a healthy partner beside tarpits", async () => {
    expect(await runPart("booking-race")).toMatch(/\[booking-race\] 8 concurrent bookings of one vehicle → exactly one booking, per race: [\d.,]+ ms/);
    expect(await runPart("fair-delivery")).toMatch(/\[fair-delivery\] SQLite: healthy WAIT p99, 16 tarpit companies \(4\.5 s answers\): [\d.,]+ ms/);
  }, 90_000);

  test("startup: time to /readyz and resident memory against an empty fleet", async () => {
    const out = await runPart("startup");
    for (const start of ["first start", "restart"]) {
      expect(out).toMatch(new RegExp(`launch to /readyz 200 with 2,000 fleet entries, ${start} \\([^)]*\\): [\\d,.]+ ms`));
      expect(out).toMatch(new RegExp(`resident memory when ready with 2,000 entries, ${start}: [\\d,.]+ MB`));
    }
    expect(out).toMatch(/launch to \/readyz 200 with 2,000 fleet entries, restart after 100 fleet changes by another process \([^)]*\): [\d,.]+ ms/);
    expect(out).toMatch(/resident memory when ready with 2,000 entries, restart after 100 changes: [\d,.]+ MB/);
  });
});
