// A Server-Sent Events client over a real socket (fetch), for the event stream tests: it parses what arrives
// (events and comment lines) and lets a test wait, bounded, for what it expects.

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  /** `data` parsed as JSON (undefined when it is not JSON). */
  json?: any;
  /** When it arrived (performance.now()). */
  at: number;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;
  private buffer = "";
  private readonly abort = new AbortController();
  private waiters: Array<() => void> = [];
  status = 0;
  headers = new Headers();
  /** The body of a refused request. */
  body: any;

  /** Opens `url`; resolves once the answer's headers arrived (a refusal's body is read whole). */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: client.abort.signal });
    client.status = response.status;
    client.headers = response.headers;
    if (response.status !== 200 || !response.body) {
      const text = await response.text();
      try {
        client.body = JSON.parse(text);
      } catch {
        client.body = text;
      }
      client.ended = true;
      return client;
    }
    void client.read(response.body);
    return client;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        this.buffer += decoder.decode(chunk, { stream: true });
        this.parse();
      }
    } catch {
      // aborted by close(), or the server cut the connection
    } finally {
      this.ended = true;
      this.notify();
    }
  }

  private parse(): void {
    let end: number;
    while ((end = this.buffer.indexOf("\n\n")) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const e: SseEvent = { at: performance.now() };
      let isEvent = false;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
        else if (line.startsWith("id: ")) (e.id = line.slice(4)), (isEvent = true);
        else if (line.startsWith("event: ")) (e.event = line.slice(7)), (isEvent = true);
        else if (line.startsWith("data: ")) (e.data = (e.data === undefined ? "" : `${e.data}\n`) + line.slice(6)), (isEvent = true);
      }
      if (!isEvent) continue;
      try {
        e.json = e.data === undefined ? undefined : JSON.parse(e.data);
      } catch {}
      this.events.push(e);
    }
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Waits (at most `timeoutMs`) until `done()` holds; throws with what arrived when it does not. */
  async until(done: () => boolean, timeoutMs = 5000, what = "events"): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.events.map((e) => [e.id, e.event]))} ended=${this.ended}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The events of a type (all when none given). */
  of(type?: string): SseEvent[] {
    return type === undefined ? this.events : this.events.filter((e) => e.event === type);
  }

  /** The id of the last event received. */
  get lastId(): string | undefined {
    return this.events.at(-1)?.id;
  }

  close(): void {
    this.abort.abort();
  }
}
