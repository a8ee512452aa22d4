/**
 * Request and reply over postMessage with one Bun Worker. Each request goes out with an `id`; the worker
 * answers it with messages carrying the same `id`: any number of progress messages, then one final reply.
 * Messages without an `id` are events (see `onEvent`). The worker never keeps the process alive.
 */
export interface WorkerRpcOptions<Reply> {
  /** Names the worker in errors ("booking writer failed: …"). */
  name: string;
  /** The error a final reply carries, if it is one: the call is rejected with it. */
  errorOf?: (reply: Reply) => string | undefined;
  /** True for a message sent ahead of the final reply (given to the call's `progress`). */
  isProgress?: (reply: Reply) => boolean;
  /** Messages that answer no call. */
  onEvent?: (message: Reply) => void;
  /** The worker failed (an uncaught error): every waiting call was rejected with `error` first. */
  onFailure?: (error: Error) => void;
}

export interface CallOptions<Reply> {
  transfer?: Transferable[];
  progress?: (reply: Reply) => void;
  /** The call is rejected with `timeoutError` after this long (no limit when unset). */
  timeoutMs?: number;
  timeoutError?: string;
}

interface Waiting<Reply> {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
  progress?: (reply: Reply) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** How long `stop` waits for the worker's thread to exit. */
const EXIT_WAIT_MS = 1_000;

export class WorkerRpc<Request extends object, Reply extends object> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Waiting<Reply>>();
  private nextId = 1;
  private ended = false;

  constructor(
    url: string,
    private readonly options: WorkerRpcOptions<Reply>,
  ) {
    this.worker = new Worker(url);
    // A worker must never keep a finished command or test process alive.
    (this.worker as unknown as { unref(): void }).unref();
    this.worker.onmessage = (event: MessageEvent<Reply & { id?: number }>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      const error = new Error(`${this.options.name} failed: ${event.message}`);
      this.rejectAll(error);
      this.options.onFailure?.(error);
    };
  }

  /**
   * Starts a worker and sends it `message` (without an id); resolves once its first message passes `ready`
   * (true, or the reason it did not start), rejects after `timeoutMs` or when the worker fails first.
   */
  static start<Request extends object, Reply extends object>(
    url: string,
    message: unknown,
    ready: (reply: Reply) => true | string,
    timeoutMs: number,
    options: WorkerRpcOptions<Reply>,
  ): Promise<WorkerRpc<Request, Reply>> {
    let settle!: (error?: Error) => void;
    const started = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    const rpc = new WorkerRpc<Request, Reply>(url, {
      ...options,
      onEvent: (reply) => {
        const verdict = ready(reply);
        settle(verdict === true ? undefined : new Error(verdict));
      },
      onFailure: (error) => settle(error),
    });
    const timer = setTimeout(() => settle(new Error(`${options.name} did not start`)), timeoutMs);
    rpc.worker.postMessage(message);
    return started.then(
      () => {
        clearTimeout(timer);
        rpc.options.onEvent = options.onEvent;
        rpc.options.onFailure = options.onFailure;
        return rpc;
      },
      (error: Error) => {
        clearTimeout(timer);
        rpc.terminate();
        throw error;
      },
    );
  }

  /** Sends `request`; resolves with the worker's final reply to it. */
  call(request: Request, call: CallOptions<Reply> = {}): Promise<Reply> {
    if (this.ended) return Promise.reject(new Error(`${this.options.name} stopped`));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      const waiting: Waiting<Reply> = { resolve, reject, progress: call.progress };
      if (call.timeoutMs !== undefined)
        waiting.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(call.timeoutError ?? `${this.options.name} did not answer`));
        }, call.timeoutMs);
      this.pending.set(id, waiting);
      this.worker.postMessage({ ...request, id }, call.transfer ?? []);
    });
  }

  /** Sends a message that gets no reply. */
  post(message: unknown): void {
    if (!this.ended) this.worker.postMessage(message);
  }

  /** Calls sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Rejects every waiting call with `error`. */
  rejectAll(error: Error): void {
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.pending.clear();
  }

  /** Ends the worker now (waiting calls are left to their timeouts: reject them first). */
  terminate(): void {
    this.ended = true;
    this.worker.terminate();
  }

  /**
   * Ends the worker; resolves once its thread has exited (or after a bounded wait): the memory of its heap
   * is back with the system by then.
   */
  stop(): Promise<void> {
    this.ended = true;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, EXIT_WAIT_MS);
      this.worker.addEventListener("close", () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.terminate();
    });
  }

  private receive(message: Reply & { id?: number }): void {
    if (typeof message !== "object" || message === null || message.id === undefined) {
      this.options.onEvent?.(message);
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    if (this.options.isProgress?.(message)) {
      waiting.progress?.(message);
      return;
    }
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    const error = this.options.errorOf?.(message);
    if (error !== undefined) waiting.reject(new Error(error));
    else waiting.resolve(message);
  }
}
