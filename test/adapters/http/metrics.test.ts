import { afterAll, describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createHarness } from "../../support/harness";

type Family = { name: string; type: string; metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }> };

const parse = (text: string) => new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));

describe("GET /metrics", () => {
  const h = createHarness();
  afterAll(() => h.close());

  test("is Prometheus text that the parser reads, with every family the operations team alerts on", async () => {
    const res = await h.request("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const families = parse(res.text);
    for (const name of [
      "tripswitch_http_requests_total",
      "tripswitch_http_request_duration_seconds",
      "tripswitch_outbox_messages",
      "tripswitch_delivery_failed_attempts_total",
      "tripswitch_fleet_index_entries",
      "tripswitch_fleet_index_age_seconds",
      "tripswitch_booking_writer_queue",
      "tripswitch_process_memory_bytes",
      "process_resident_memory_bytes",
    ])
      expect(families.has(name)).toBe(true);
    expect(families.get("tripswitch_http_request_duration_seconds")!.type).toBe("HISTOGRAM");
    expect(Number(families.get("process_resident_memory_bytes")!.metrics[0].value)).toBeGreaterThan(0);
    const outbox = families.get("tripswitch_outbox_messages")!.metrics;
    expect(outbox.find((m) => m.labels?.channel === "webhook" && m.labels?.status === "pending")?.value).toBe("0");
  });

  test("counts requests per route template and status, and their latency", async () => {
    const count = async (route: string, status: string) => {
      const text = (await h.request("GET", "/metrics")).text;
      const c = parse(text).get("tripswitch_http_requests_total")!.metrics.find((m) => m.labels?.route === route && m.labels?.status === status && m.labels?.method === "GET");
      // The parser folds a labelled histogram's series into one, so its _count line is read from the text.
      const line = text.split("\n").find((l) => l.startsWith(`tripswitch_http_request_duration_seconds_count{method="GET",route="${route}",status="${status}"}`));
      return { count: Number(c?.value ?? 0), observed: Number(line?.split(" ").pop() ?? 0) };
    };
    const before = await count("/api/reservation/:transactionId", "401");
    for (let i = 0; i < 3; i++) expect((await h.request("GET", `/api/reservation/${crypto.randomUUID()}`)).status).toBe(401);
    // The edge records a request after its response is sent: poll briefly (bounded).
    let after = await count("/api/reservation/:transactionId", "401");
    for (let i = 0; i < 50 && after.count - before.count < 3; i++) {
      await Bun.sleep(10);
      after = await count("/api/reservation/:transactionId", "401");
    }
    expect(after.count - before.count).toBe(3);
    expect(after.observed - before.observed).toBe(3);
    // The histogram's buckets are cumulative and end at the count.
    const text = (await h.request("GET", "/metrics")).text;
    const series = 'method="GET",route="/api/reservation/:transactionId",status="401"';
    const buckets = text.split("\n").filter((l) => l.startsWith(`tripswitch_http_request_duration_seconds_bucket{${series},le=`)).map((l) => Number(l.split(" ").pop()));
    expect(buckets.length).toBeGreaterThan(10);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]);
    expect(buckets.at(-1)).toBe(after.observed);
    // Unknown paths share one series, so a scanner cannot grow the label set.
    await h.request("GET", "/no/such/path/1");
    await h.request("GET", "/no/such/path/2");
    await Bun.sleep(50);
    expect((await count("(unmatched)", "404")).count).toBeGreaterThanOrEqual(2);
  });
});

describe("GET /metrics with METRICS_TOKEN", () => {
  const token = "metrics-token-0123456789abcdef";
  const h = createHarness({ metricsToken: token });
  afterAll(() => h.close());

  test("401 without the bearer token or with a wrong one; 200 with it", async () => {
    const none = await h.request("GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(none.body.code).toBe("INVALID_METRICS_TOKEN");
    expect((await h.request("GET", "/metrics", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const ok = await h.request("GET", "/metrics", { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(parse(ok.text).has("tripswitch_http_requests_total")).toBe(true);
  });
});
