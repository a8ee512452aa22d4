import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What the service reports about itself at scrape time (read only when /metrics is asked). */
export interface MetricSources {
  /** Outbox rows per channel and status, pending and failed only. */
  outbox(): Array<{ channel: string; status: string; count: number }>;
  /** Located entries in the fleet index answering searches, and when that view was swapped in (Unix ms, 0 = never). */
  fleetIndex(): { size: number; builtAtMs: number };
  /** Booking changes queued or committing. */
  bookingWriterQueue(): number;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
/** Latency buckets (seconds): fleet search answers in well under a millisecond, imports take seconds. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Label sets cached per (method, route, status); beyond this many the rest share one overflow set. */
const MAX_SERIES = 2000;

interface Series {
  count: { inc(): void };
  latency: { observe(v: number): void };
}

/**
 * The service's Prometheus metrics, on a registry of its own (one per service instance, so tests do not share).
 * Request metrics are recorded per (method, route template, status): the label children are cached, so a request
 * costs one map lookup, one increment and one bucket search.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly latency: Histogram<"method" | "route" | "status">;
  private readonly deliveryFailures: Counter<"channel" | "final">;
  private readonly series = new Map<string, Series>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requests = new Counter({ name: "tripswitch_http_requests_total", help: "HTTP requests answered, by method, route and status", labelNames: ["method", "route", "status"], registers });
    this.latency = new Histogram({
      name: "tripswitch_http_request_duration_seconds",
      help: "Time from request to response, by method, route and status",
      labelNames: ["method", "route", "status"],
      buckets: BUCKETS,
      registers,
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
      collect() {
        this.reset();
        for (const channel of ["delivery", "webhook"]) for (const status of ["pending", "failed"]) this.set({ channel, status }, 0);
        for (const row of sources.outbox()) this.set({ channel: row.channel, status: row.status }, row.count);
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
      const labels = this.series.size < MAX_SERIES ? { method: METHODS.has(method) ? method : "OTHER", route: route || "(unmatched)", status: String(status) } : { method: "OTHER", route: "(other)", status: "0" };
      s = { count: this.requests.labels(labels), latency: this.latency.labels(labels) };
      this.series.set(key, s);
    }
    s.count.inc();
    s.latency.observe(seconds);
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
