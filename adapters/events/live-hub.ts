import { TooManyRequestsError } from "../../domain/errors";
import { LIVE_EVENT_RETENTION_SECONDS, MAX_STREAMS_PER_COMPANY, streamStart } from "../../domain/events/live-events";
import type { EventStreams, LiveEvent, LiveEventLog, StreamRegistry, StreamStart } from "../../domain/events/live-events";

/** How the hub runs; production takes the defaults, tests make them small. */
export interface LiveHubOptions {
  /** How often the log is read for new events while streams are open. */
  pollMs: number;
  /** A comment line goes to every idle stream this often. */
  heartbeatMs: number;
  /** Events and bytes a stream may have waiting for its reader; past either, it is cut (the client resumes). */
  maxQueuedEvents: number;
  maxQueuedBytes: number;
  maxStreamsPerCompany: number;
  /** Events read from the log at once (a resuming stream's backlog, the poll). */
  batch: number;
  /** How long the client waits before reconnecting (the `retry:` field). */
  retryMs: number;
}

export const DEFAULT_HUB_OPTIONS: LiveHubOptions = {
  pollMs: 100,
  heartbeatMs: 15_000,
  maxQueuedEvents: 1000,
  maxQueuedBytes: 1024 * 1024,
  maxStreamsPerCompany: MAX_STREAMS_PER_COMPANY,
  batch: 500,
  retryMs: 2000,
};

const encoder = new TextEncoder();

/** A stream's claim in the shared registry is renewed this often, and lasts this long unless renewed. */
const CLAIM_RENEW_MS = 15_000;
const CLAIM_TTL_SECONDS = 45;
/** How often the companies following positions on other instances are read again. */
const FOLLOWERS_REFRESH_MS = 1000;

/** Frames already made: a poll hands one event object to each of its company's streams. */
const frames = new WeakMap<LiveEvent, string>();

/** An event in the text/event-stream format (made once per event, whatever the number of streams). */
export function sseFrame(e: LiveEvent): string {
  let frame = frames.get(e);
  if (frame === undefined) frames.set(e, (frame = `id: ${e.id}\nevent: ${e.type}\ndata: ${e.body}\n\n`));
  return frame;
}

/** One company's streams on this instance. */
interface Company {
  /** Lower-case, as the log keeps it. */
  netid: string;
  streams: Set<Stream>;
}

/**
 * One open event stream. It first reads its backlog from the log (after the client's last event id) up to the
 * position from which the poll hands it every event of its company (`joinAt`, set when the first poll round after
 * it opened starts), then takes the poll's events; meanwhile those wait in `early`. Chunks wait in
 * `queue` for the reader (the response pulls one at a time, as the socket takes them): a reader that falls
 * behind past the bounds is cut, never buffered without limit.
 */
class Stream {
  cursor: number;
  live = false;
  closed = false;
  /** From here on the poll hands this stream every event of its company (undefined until the next poll round). */
  joinAt: number | undefined;
  joined: Promise<void>;
  markJoined!: () => void;
  private early: LiveEvent[] = [];
  private queue: string[] = [];
  private queuedBytes = 0;
  private wakeReader: (() => void) | undefined;
  private wakeBacklog: (() => void) | undefined;
  readonly body: ReadableStream<Uint8Array>;

  constructor(
    readonly id: string,
    readonly company: Company,
    start: StreamStart,
    private readonly hub: LiveHub,
    private readonly options: LiveHubOptions,
    private readonly onCut: () => void,
  ) {
    this.cursor = start.from;
    this.joined = new Promise<void>((resolve) => (this.markJoined = resolve));
    this.enqueue(`retry: ${options.retryMs}\n: connected\n\n`);
    if (start.reset) {
      const data = JSON.stringify({ type: "reset", reason: start.reset, lastEventId: String(start.from) });
      this.enqueue(`id: ${start.from}\nevent: reset\ndata: ${data}\n\n`);
    }
    this.body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (this.queue.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wakeReader = resolve));
          if (this.queue.length > 0) {
            const chunk = this.queue.join("");
            this.queue = [];
            this.queuedBytes = 0;
            controller.enqueue(encoder.encode(chunk));
            this.wakeBacklog?.();
          } else if (this.closed) controller.close();
        },
        cancel: () => this.close(),
      },
      { highWaterMark: 0 },
    );
  }

  /** An event from the poll. */
  offer(e: LiveEvent): void {
    if (this.closed) return;
    if (!this.live) {
      this.early.push(e);
      if (this.early.length > this.options.maxQueuedEvents) this.close();
      return;
    }
    this.send(e);
  }

  /** An event of the backlog or the poll, once, in order. */
  send(e: LiveEvent): void {
    if (this.closed || e.id <= this.cursor) return;
    this.cursor = e.id;
    this.enqueue(sseFrame(e));
  }

  /** Waits while half the bounds are taken, so a backlog is read only as fast as the reader takes it. */
  async room(): Promise<void> {
    while (!this.closed && (this.queue.length * 2 > this.options.maxQueuedEvents || this.queuedBytes * 2 > this.options.maxQueuedBytes))
      await new Promise<void>((resolve) => (this.wakeBacklog = resolve));
  }

  /** Backlog read: joins the poll once it has read up to where the poll covers the company. */
  goLive(): void {
    this.live = true;
    for (const e of this.early) this.send(e);
    this.early = [];
  }

  heartbeat(): void {
    if (!this.closed && this.queue.length === 0) this.enqueue(": heartbeat\n\n");
  }

  private enqueue(chunk: string): void {
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queue.length > this.options.maxQueuedEvents || this.queuedBytes > this.options.maxQueuedBytes) {
      // Too far behind: cut. What was handed to the connection still arrives; the client resumes after it.
      this.hub.slowReadersCut++;
      this.queue = [];
      // The connection may never drain what it holds: it is dropped once it stays idle (see the route).
      this.onCut();
      this.queuedBytes = 0;
      this.close();
      return;
    }
    this.wakeReader?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.early = [];
    this.hub.release(this);
    this.wakeReader?.();
    this.wakeBacklog?.();
    this.markJoined();
  }
}

/**
 * The event streams of this instance: one poll of the log (every `pollMs` while any stream is open) for every
 * company with a stream here, fanned out to its streams; heartbeats; the per-company limit. Any instance's
 * events reach the streams of every other through the shared log.
 */
export class LiveHub implements EventStreams {
  private readonly options: LiveHubOptions;
  private readonly companies = new Map<string, Company>();
  /** The log position up to which the poll has read. */
  private cursor: number | undefined;
  private polling: Promise<void> | undefined;
  private again = false;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  /** Streams cut for falling behind (for metrics and tests). */
  slowReadersCut = 0;
  /** Companies whose last stream here closed, and when (ms): they may resume, so their positions are kept. */
  private readonly recentlyClosed = new Map<string, number>();
  /** Companies with a stream on any instance lately (from the registry), and when that was read. */
  private followersElsewhere = new Set<string>();
  private followersReadAt = 0;
  private readingFollowers: Promise<void> | undefined;

  constructor(
    private readonly log: LiveEventLog,
    options: Partial<LiveHubOptions> = {},
    private readonly onError: (error: unknown) => void = () => {},
    /** Where instances sharing a database count each other's streams (none: this instance's count is the count). */
    private readonly registry?: StreamRegistry,
  ) {
    this.options = { ...DEFAULT_HUB_OPTIONS, ...options };
  }

  /**
   * Whether the company follows its positions: it has (or had, within the resume window) an event stream here or,
   * with a registry, on any instance. Positions are logged only for such companies — a company that never opened
   * a stream has nothing to resume. Answers at once; what other instances hold is read again every second.
   */
  follows(netid: string): boolean {
    const key = netid.toLowerCase();
    if (this.companies.has(key)) return true;
    const now = Date.now();
    const closed = this.recentlyClosed.get(key);
    if (closed !== undefined) {
      if (now - closed < LIVE_EVENT_RETENTION_SECONDS * 1000) return true;
      this.recentlyClosed.delete(key);
    }
    if (!this.registry) return false;
    if (now - this.followersReadAt > FOLLOWERS_REFRESH_MS && !this.readingFollowers) {
      this.followersReadAt = now;
      this.readingFollowers = this.registry
        .followers(now / 1000 - LIVE_EVENT_RETENTION_SECONDS)
        .then((netids) => void (this.followersElsewhere = new Set(netids)))
        .catch((error) => this.onError(error))
        .finally(() => (this.readingFollowers = undefined));
    }
    return this.followersElsewhere.has(key);
  }

  /** Open streams, of one company or of all. */
  openStreams(netid?: string): number {
    if (netid !== undefined) return this.companies.get(netid.toLowerCase())?.streams.size ?? 0;
    let n = 0;
    for (const c of this.companies.values()) n += c.streams.size;
    return n;
  }

  /**
   * Opens a stream of the company's events: after `lastEventId` when the log still keeps it, else from now
   * (with a reset event when an id was given). 429 TOO_MANY_STREAMS past the per-company limit. `onCut` is
   * called when the stream is cut for falling behind.
   */
  async open(netid: string, lastEventId: string | null | undefined, onCut: () => void = () => {}): Promise<ReadableStream<Uint8Array>> {
    const key = netid.toLowerCase();
    const limit = this.options.maxStreamsPerCompany;
    if ((this.companies.get(key)?.streams.size ?? 0) >= limit) throw tooMany(limit);
    const streamId = crypto.randomUUID();
    if (this.registry && !(await this.registry.claim(key, streamId, limit, Date.now() / 1000, CLAIM_TTL_SECONDS))) throw tooMany(limit);
    let start: StreamStart;
    try {
      start = await streamStart(this.log, key, lastEventId);
    } catch (error) {
      this.unclaim(streamId);
      throw error;
    }
    // Checked again: other streams may have opened while the log was read.
    let company = this.companies.get(key);
    if ((company?.streams.size ?? 0) >= limit) {
      this.unclaim(streamId);
      throw tooMany(limit);
    }
    if (!company) {
      company = { netid: key, streams: new Set() };
      this.companies.set(key, company);
    }
    const stream = new Stream(streamId, company, start, this, this.options, onCut);
    company.streams.add(stream);
    this.startTimers();
    void this.catchUp(stream).catch((error) => {
      this.onError(error);
      stream.close();
    });
    void this.poll();
    return stream.body;
  }

  /** Sends a stream its backlog from the log up to where the poll took it in, then lets the poll's events through. */
  private async catchUp(stream: Stream): Promise<void> {
    await stream.joined;
    for (;;) {
      if (stream.closed) return;
      const joinAt = stream.joinAt!;
      if (stream.cursor >= joinAt) {
        stream.goLive();
        return;
      }
      const events = await this.log.after(stream.company.netid, stream.cursor, this.options.batch);
      for (const e of events) {
        if (e.id > joinAt) break;
        await stream.room();
        stream.send(e);
      }
      // Every event of the company up to joinAt is sent (the poll brings the later ones).
      if (events.length < this.options.batch || events[events.length - 1].id >= joinAt) stream.cursor = Math.max(stream.cursor, joinAt);
    }
  }

  /** Called by a stream as it closes. */
  release(stream: Stream): void {
    const key = stream.company.netid;
    this.unclaim(stream.id);
    const company = this.companies.get(key);
    if (!company) return;
    company.streams.delete(stream);
    if (company.streams.size === 0 && this.companies.get(key) === company) {
      this.companies.delete(key);
      this.recentlyClosed.set(key, Date.now());
    }
    if (this.companies.size === 0) this.stopTimers();
  }

  /** Reads the log's new events for every company with a stream here and hands each to its company's streams. */
  poll(): Promise<void> {
    if (this.polling) {
      // Streams opened meanwhile are taken in by a round right after this one.
      this.again = true;
      return this.polling;
    }
    this.polling = this.readNew().finally(() => {
      this.polling = undefined;
      if (this.again) {
        this.again = false;
        void this.poll();
      }
    });
    return this.polling;
  }

  private async readNew(): Promise<void> {
    try {
      for (let rounds = 0; rounds < 20 && !this.stopped && this.companies.size > 0; rounds++) {
        const from = this.cursor ?? (this.cursor = await this.log.head());
        const companies = [...this.companies.values()];
        // From here on every round hands these companies' streams their events after `from`.
        for (const c of companies)
          for (const s of c.streams)
            if (s.joinAt === undefined) {
              s.joinAt = from;
              s.markJoined();
            }
        const { events, readTo } = await this.log.newer(
          companies.map((c) => c.netid),
          from,
          this.options.batch,
        );
        for (const e of events) {
          const company = this.companies.get(e.netid);
          if (company) for (const s of company.streams) s.offer(e);
        }
        this.cursor = Math.max(from, readTo);
        if (events.length < this.options.batch) return;
      }
    } catch (error) {
      this.onError(error);
    }
  }

  private unclaim(streamId: string): void {
    this.registry?.release(streamId, Date.now() / 1000).catch((error) => this.onError(error));
  }

  private startTimers(): void {
    if (this.stopped) return;
    this.pollTimer ??= setInterval(() => void this.poll(), this.options.pollMs);
    this.heartbeatTimer ??= setInterval(() => {
      for (const c of this.companies.values()) for (const s of c.streams) s.heartbeat();
    }, this.options.heartbeatMs);
    if (this.registry)
      this.renewTimer ??= setInterval(() => {
        const ids = [...this.companies.values()].flatMap((c) => [...c.streams].map((s) => s.id));
        this.registry!.renew(ids, Date.now() / 1000, CLAIM_TTL_SECONDS).catch((error) => this.onError(error));
      }, CLAIM_RENEW_MS);
  }

  private stopTimers(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.pollTimer = this.heartbeatTimer = this.renewTimer = undefined;
    // The poll's position goes stale while nothing reads: the next stream starts it at the head again.
    this.cursor = undefined;
  }

  /** Ends every stream (clients reconnect elsewhere) and stops polling; for an orderly shutdown. */
  close(): void {
    this.stopped = true;
    for (const c of [...this.companies.values()]) for (const s of [...c.streams]) s.close();
    this.stopTimers();
  }
}

function tooMany(limit: number): TooManyRequestsError {
  return new TooManyRequestsError(5, `At most ${limit} event streams per company are open at once; close one, or retry later`, "TOO_MANY_STREAMS");
}
