import type { ChangeOutcome, WriteStep, WriterReply, WriterRequest } from "./booking-writer.worker";
import { workerEntry } from "../runtime";

export type { ChangeOutcome, WriteStep } from "./booking-writer.worker";

const START_TIMEOUT_MS = 5_000;
/** A group not answered in this long is failed (the worker is stuck or gone); its callers get an error. */
const GROUP_TIMEOUT_MS = 30_000;

/**
 * The main thread's side of the booking writer worker: sends groups of changes (each a list of statements)
 * and resolves with their outcomes once the group's transaction has committed. Groups run one after another
 * in the order sent.
 */
export class BookingWriter {
  private readonly pending = new Map<number, { resolve: (o: ChangeOutcome[]) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  private nextId = 1;
  private failure: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly onProblem: (message: string) => void,
  ) {
    worker.onmessage = (event: MessageEvent<WriterReply>) => {
      const reply = event.data;
      if (!("id" in reply)) return;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if ("failed" in reply) waiting.reject(new Error(reply.failed));
      else waiting.resolve(reply.outcomes);
    };
    worker.onerror = (event) => this.fail(new Error(`booking writer failed: ${event.message}`));
  }

  /**
   * Starts the worker on `dbPath` with the statements changes refer to by index; undefined (and a message
   * to `onProblem`) when it cannot start — the caller then writes on its own connection.
   */
  static async start(
    dbPath: string,
    statements: string[],
    options: { workerUrl?: string; onProblem?: (message: string) => void; /** Whether its commits checkpoint (default true; false when a BackgroundCheckpointer runs). */ autoCheckpoint?: boolean } = {},
  ): Promise<BookingWriter | undefined> {
    const onProblem = options.onProblem ?? (() => {});
    const worker = new Worker(options.workerUrl ?? workerEntry("adapters/sqlite/booking-writer.worker.ts"));
    (worker as unknown as { unref(): void }).unref();
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("booking writer did not start")), START_TIMEOUT_MS);
        worker.onerror = (event) => {
          clearTimeout(timer);
          reject(new Error(event.message || "booking writer failed"));
        };
        worker.onmessage = (event: MessageEvent<WriterReply>) => {
          clearTimeout(timer);
          if ("opened" in event.data) resolve();
          else reject(new Error("error" in event.data ? event.data.error : "booking writer did not open"));
        };
        worker.postMessage({ open: { dbPath, statements, autoCheckpoint: options.autoCheckpoint ?? true } } satisfies WriterRequest);
      });
    } catch (error) {
      worker.terminate();
      onProblem(`booking writer unavailable (${error instanceof Error ? error.message : String(error)}); bookings are written on the main connection`);
      return undefined;
    }
    return new BookingWriter(worker, onProblem);
  }

  /** False once the worker failed: the caller then writes on its own connection. */
  get usable(): boolean {
    return this.failure === undefined;
  }

  /** Groups sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Writes one group in one transaction; resolves with each change's outcome after COMMIT returned. */
  write(changes: WriteStep[][]): Promise<ChangeOutcome[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<ChangeOutcome[]>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error("booking writer did not answer")), GROUP_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, changes } satisfies WriterRequest);
    });
  }

  /**
   * Turns the writer connection's automatic checkpoints on (it was started without them because a
   * BackgroundCheckpointer ran, and that has stopped). Takes effect before the next group is written.
   */
  resumeAutoCheckpoints(): void {
    if (this.failure) return;
    this.worker.postMessage({ autoCheckpoint: true } satisfies WriterRequest);
  }

  /** Resolves once every group sent has been answered (bounded), then ends the worker. */
  async stop(): Promise<void> {
    const deadline = Date.now() + GROUP_TIMEOUT_MS;
    // Bounded by the deadline: answered groups leave `pending`.
    while (this.pending.size > 0 && Date.now() < deadline && !this.failure) await Bun.sleep(5);
    this.failure ??= new Error("booking writer stopped");
    this.worker.terminate();
  }

  /**
   * The worker is gone or stuck: groups still waiting get an error. Whether such a group committed is not
   * known, so its callers are told it failed; repeating a sendTrip with the same requesterResNo is safe.
   */
  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.onProblem(`${error.message}; bookings are written on the main connection from now on`);
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.pending.clear();
    this.worker.terminate();
  }
}
