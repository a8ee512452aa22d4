import { Counter, Gauge, Registry } from "prom-client";

/** What the service reports about itself at scrape time (read only when /metrics is asked). */
export interface MetricSources {
  /** Outbox rows per channel and status, pending and failed only. */
  outbox(): Promise<Array<{ channel: string; status: string; count: number }>>;
  /** Located entries in the fleet index answering searches, and when that view was swapped in (Unix ms, 0 = never). */
  fleetIndex(): { size: number; builtAtMs: number };
  /** Booking changes queued or committing. */
  bookingWriterQueue(): number;
  /** Fleet search answers served from the answer cache (hits) or computed (misses), and the bytes it holds. */
  searchAnswers?(): { hits: number; misses: number; bytes: number };
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
/** Latency buckets (seconds): fleet search answers in well under a millisecond, imports take seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Distinct (method, route, status) series; beyond this many the rest share one overflow series. */
const MAX_SERIES = 2000;

/** One (method, route, status) series: its count, sum of seconds and per-bucket (not cumulative) counts. */
interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  buckets: Float64Array;
}

type Sample = { metricName?: string; labels: Record<string, string | number>; value: number };

/**
 * The service's Prometheus metrics, on a registry of its own (one per service instance, so tests do not share).
 * Request metrics are plain numbers per (method, route template, status) — a request costs one map lookup, two
 * additions and a bucket search (prom-client's own histogram hashes the labels on every observation) — and
 * are handed to the registry as a counter and a histogram when scraped.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly deliveryFailures: Counter<"channel" | "final">;
  /** Raw (method, status, route) key → its series; `all` holds each series once. */
  private readonly series = new Map<string, Series>();
  private readonly all: Series[] = [];

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.collector("tripswitch_http_requests_total", "HTTP requests answered, by method, route and status", "counter", () =>
      this.all.map((s) => ({ labels: s.labels, value: s.count })),
    );
    const latency = "tripswitch_http_request_duration_seconds";
    this.collector(latency, "Time from request to response, by method, route and status", "histogram", () => {
      const out: Sample[] = [];
      for (const s of this.all) {
        let cumulative = 0;
        BUCKETS.forEach((le, i) => out.push({ metricName: `${latency}_bucket`, labels: { ...s.labels, le }, value: (cumulative += s.buckets[i]) }));
        out.push({ metricName: `${latency}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count });
        out.push({ metricName: `${latency}_sum`, labels: s.labels, value: s.sum });
        out.push({ metricName: `${latency}_count`, labels: s.labels, value: s.count });
      }
      return out;
    });
    this.deliveryFailures = new Counter({
      name: "tripswitch_delivery_failed_attempts_total",
      help: "Failed delivery and webhook attempts since start (final = the message gave up)",
      labelNames: ["channel", "final"],
      registers,
    });
    new Gauge({
      name: "tripswitch_outbox_messages",
      help: "Outbox messages waiting to be sent (pending) or given up (failed), by channel",
      labelNames: ["channel", "status"],
      registers,
      async collect() {
        const rows = await sources.outbox();
        this.reset();
        for (const channel of ["delivery", "webhook"]) for (const status of ["pending", "failed"]) this.set({ channel, status }, 0);
        for (const row of rows) this.set({ channel: row.channel, status: row.status }, row.count);
      },
    });
    new Gauge({
      name: "tripswitch_fleet_index_entries",
      help: "Located active fleet entries in the index answering searches",
      registers,
      collect() {
        this.set(sources.fleetIndex().size);
      },
    });
    new Gauge({
      name: "tripswitch_fleet_index_age_seconds",
      help: "Seconds since the fleet index answering searches was swapped in (-1 before the first build)",
      registers,
      collect() {
        const { builtAtMs } = sources.fleetIndex();
        this.set(builtAtMs === 0 ? -1 : (Date.now() - builtAtMs) / 1000);
      },
    });
    new Counter({
      name: "tripswitch_search_answer_lookups_total",
      help: "Fleet searches answered from the answer cache (hit) or computed (miss) since start",
      labelNames: ["outcome"],
      registers,
      collect() {
        const answers = sources.searchAnswers?.();
        this.reset();
        this.inc({ outcome: "hit" }, answers?.hits ?? 0);
        this.inc({ outcome: "miss" }, answers?.misses ?? 0);
      },
    });
    new Gauge({
      name: "tripswitch_search_answer_cache_bytes",
      help: "Bytes of fleet search answers kept for the current index generation",
      registers,
      collect() {
        this.set(sources.searchAnswers?.().bytes ?? 0);
      },
    });
    new Gauge({
      name: "tripswitch_booking_writer_queue",
      help: "Booking changes queued or committing",
      registers,
      collect() {
        this.set(sources.bookingWriterQueue());
      },
    });
    new Gauge({
      name: "tripswitch_process_memory_bytes",
      help: "Process memory by kind (rss, heapTotal, heapUsed, external)",
      labelNames: ["kind"],
      registers,
      collect() {
        const m = process.memoryUsage();
        for (const kind of ["rss", "heapTotal", "heapUsed", "external"] as const) this.set({ kind }, m[kind]);
      },
    });
    new Gauge({
      name: "process_resident_memory_bytes",
      help: "Resident memory size in bytes",
      registers,
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
  }

  /** One answered request; `route` is the route template (bounded), never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= MAX_SERIES) s = this.seriesOf({ method: "OTHER", route: "(other)", status: "0" });
      else {
        s = this.seriesOf({ method: METHODS.has(method) ? method : "OTHER", route: route || "(unmatched)", status: String(status) });
        this.series.set(key, s);
      }
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
    if (i < BUCKETS.length) s.buckets[i]++;
  }

  /** The series with these labels (several raw keys may share one, e.g. unknown methods). */
  private seriesOf(labels: Series["labels"]): Series {
    let s = this.all.find((x) => x.labels.method === labels.method && x.labels.route === labels.route && x.labels.status === labels.status);
    if (!s) this.all.push((s = { labels, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length) }));
    return s;
  }

  /** A metric whose samples are computed when scraped (registered like prom-client's own). */
  private collector(name: string, help: string, type: "counter" | "histogram", samples: () => Sample[]): void {
    const metric = { name, help, type, aggregator: "sum", get: async () => ({ name, help, type, aggregator: "sum", values: samples() }) };
    this.registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  /** One failed delivery or webhook attempt. */
  deliveryAttemptFailed(channel: string, final: boolean): void {
    this.deliveryFailures.inc({ channel, final: final ? "true" : "false" });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
