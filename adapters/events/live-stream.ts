import type { LiveEvent, StreamEndReason, StreamStart } from "../../domain/events/live-events";
import type { LiveHubOptions } from "./live-hub";
import type { EventIdCodec } from "./event-ids";

const encoder = new TextEncoder();

/** Frames already made: a poll hands one event object to each of its company's streams. */
const frames = new WeakMap<LiveEvent, string>();

/** An event in the text/event-stream format, its id opaque (made once per event, whatever the number of streams). */
export function sseFrame(e: LiveEvent, ids: EventIdCodec): string {
  let frame = frames.get(e);
  if (frame === undefined) frames.set(e, (frame = `id: ${ids.encode(e.netid, e.id)}\nevent: ${e.type}\ndata: ${e.body}\n\n`));
  return frame;
}

/** One company's streams on this instance. */
export interface Company {
  /** Lower-case, as the log keeps it. */
  netid: string;
  streams: Set<Stream>;
}

/** What a stream needs from the hub that holds it. */
export interface StreamOwner {
  release(stream: Stream): void;
  readonly ids: EventIdCodec;
  slowReadersCut: number;
}

/**
 * One open event stream. It first reads its backlog from the log (after the client's last event id) up to the
 * position from which the poll hands it every event of its company (`joinAt`, set when the first poll round after
 * it opened starts), then takes the poll's events; meanwhile those wait in `early`. Chunks wait in
 * `queue` for the reader (the response pulls one at a time, as the socket takes them): a reader that falls
 * behind past the bounds is cut, never buffered without limit.
 */
export class Stream {
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
    private readonly hub: StreamOwner,
    private readonly options: LiveHubOptions,
    private readonly onCut: () => void,
    /** Asked again every few seconds: why the stream's credential no longer holds (undefined: it still does). */
    readonly recheck?: () => Promise<StreamEndReason | undefined>,
  ) {
    this.cursor = start.from;
    this.joined = new Promise<void>((resolve) => (this.markJoined = resolve));
    this.enqueue(`retry: ${options.retryMs}\n: connected\n\n`);
    if (start.reset) {
      const id = hub.ids.encode(company.netid, start.from);
      this.enqueue(`id: ${id}\nevent: reset\ndata: ${JSON.stringify({ type: "reset", reason: start.reset, lastEventId: id })}\n\n`);
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
    this.enqueue(sseFrame(e, this.hub.ids));
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

  /** Ends the stream for `reason`: the client gets `event: revoked` (no id: its Last-Event-ID stays the last event's), then the close. */
  revoke(reason: StreamEndReason): void {
    if (this.closed) return;
    this.queue.push(`event: revoked\ndata: ${JSON.stringify({ type: "revoked", reason })}\n\n`);
    this.wakeReader?.();
    this.close();
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
