import {
  MAX_STREAMS_PER_COMPANY,
  streamStart,
  type EventStreams,
  type LiveEventLog,
  type StreamEndReason,
  type StreamOptions,
  type StreamRegistry,
  type StreamStart,
} from "../../domain/events/live-events";
import { LIVE_EVENT_RETENTION_SECONDS } from "../../domain/retention";
import { Stream, type Company } from "./live-stream";
import { EventIdCodec } from "./event-ids";

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
  /**
   * How often each open stream's credential is checked again (released, expired, user removed) and, across
   * instances, whether a newer stream took its place: a stream ends within this (plus a database round trip).
   */
  recheckMs: number;
}

export const DEFAULT_HUB_OPTIONS: LiveHubOptions = {
  pollMs: 100,
  heartbeatMs: 15_000,
  maxQueuedEvents: 1000,
  maxQueuedBytes: 1024 * 1024,
  maxStreamsPerCompany: MAX_STREAMS_PER_COMPANY,
  batch: 500,
  retryMs: 2000,
  recheckMs: 2000,
};

/** A stream's claim in the shared registry is renewed this often, and lasts this long unless renewed. */
const CLAIM_RENEW_MS = 15_000;
const CLAIM_TTL_SECONDS = 45;
/** How often the companies following positions on other instances are read again. */
const FOLLOWERS_REFRESH_MS = 1000;


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
  private recheckTimer: ReturnType<typeof setInterval> | undefined;
  private rechecking = false;
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
    /** How positions in the log become the opaque ids clients see (the same secret on every instance). */
    readonly ids: EventIdCodec = new EventIdCodec(crypto.randomUUID()),
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
   * (with a reset event when an id was given). At the per-company limit (on every instance sharing the registry)
   * the company's oldest stream ends with `event: revoked` (STREAM_LIMIT) to make room: the caller has already
   * shown a valid credential, so a company is never locked out of its own feed by streams it cannot close.
   */
  async open(netid: string, lastEventId: string | null | undefined, options: StreamOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const key = netid.toLowerCase();
    const limit = this.options.maxStreamsPerCompany;
    // Stream ids sort in the order streams open (UUIDv7): the registry ends the oldest by id.
    const streamId = Bun.randomUUIDv7();
    if (this.registry) {
      const oldest = await this.registry.claim(key, streamId, limit, Date.now() / 1000, CLAIM_TTL_SECONDS);
      for (const id of oldest) this.byId(id)?.revoke("STREAM_LIMIT");
    }
    let start: StreamStart;
    try {
      // The client's id back to a log position; one this service did not give this company is unknown.
      const given = lastEventId?.trim() ? String(this.ids.decode(key, lastEventId) ?? "unknown") : lastEventId;
      start = await streamStart(this.log, key, given);
    } catch (error) {
      this.unclaim(streamId);
      throw error;
    }
    // This instance's own count (the only one without a registry): the oldest here make room.
    const here = this.companies.get(key);
    for (const oldest of here?.streams ?? []) {
      if (here!.streams.size < limit) break;
      oldest.revoke("STREAM_LIMIT");
    }
    let company = this.companies.get(key);
    if (!company) {
      company = { netid: key, streams: new Set() };
      this.companies.set(key, company);
    }
    const stream = new Stream(streamId, company, start, this, this.options, options.onCut ?? (() => {}), options.recheck);
    company.streams.add(stream);
    this.startTimers();
    void this.catchUp(stream).catch((error) => {
      this.onError(error);
      stream.close();
    });
    void this.poll();
    return stream.body;
  }

  private byId(id: string): Stream | undefined {
    for (const c of this.companies.values()) for (const s of c.streams) if (s.id === id) return s;
    return undefined;
  }

  /**
   * Every open stream's credential asked again, and (with a registry) which streams lost their claim to a newer
   * stream on another instance: those end with `event: revoked`. A check that fails (the database is away) keeps
   * the stream; the next round asks again.
   */
  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      const streams = [...this.companies.values()].flatMap((c) => [...c.streams]);
      const endedIds = this.registry?.ended(streams.map((s) => s.id), Date.now() / 1000).catch((error) => (this.onError(error), []));
      const ended = endedIds ? new Set(await endedIds) : undefined;
      await Promise.all(
        streams.map(async (s) => {
          if (ended?.has(s.id)) return s.revoke("STREAM_LIMIT");
          const reason: StreamEndReason | undefined = await s.recheck?.().catch((error) => (this.onError(error), undefined));
          if (reason) s.revoke(reason);
        }),
      );
    } finally {
      this.rechecking = false;
    }
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
    this.recheckTimer ??= setInterval(() => void this.recheck(), this.options.recheckMs);
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
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    this.pollTimer = this.heartbeatTimer = this.renewTimer = this.recheckTimer = undefined;
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
