import type { ChangeOutcome, WriteStep, WriterReply, WriterRequest } from "./booking-writer-thread";
import { workerEntry } from "../runtime";
import { WorkerRpc } from "../worker-rpc";

export type { ChangeOutcome, WriteStep } from "./booking-writer-thread";

/** The booking writer worker's entry point in src/workers/ (its code: booking-writer-thread.ts). */
export const BOOKING_WRITER_WORKER = "booking-writer.worker.ts";

const START_TIMEOUT_MS = 5_000;
/** A group not answered in this long is failed (the worker is stuck or gone); its callers get an error. */
const GROUP_TIMEOUT_MS = 30_000;

/**
 * The main thread's side of the booking writer worker: sends groups of changes (each a list of statements)
 * and resolves with their outcomes once the group's transaction has committed. Groups run one after another
 * in the order sent.
 */
export class BookingWriter {
  private failure: Error | undefined;

  private constructor(
    private readonly rpc: WorkerRpc<{ changes: WriteStep[][] }, WriterReply>,
    private readonly onProblem: (message: string) => void,
  ) {}

  /**
   * Starts the worker on `dbPath` with the statements changes refer to by index; undefined (and a message
   * to `onProblem`) when it cannot start — the caller then writes on its own connection.
   */
  static async start(
    dbPath: string,
    statements: string[],
    options: {
      workerUrl?: string;
      onProblem?: (message: string) => void;
      /** Whether its commits checkpoint (default true; false when a BackgroundCheckpointer runs). */ autoCheckpoint?: boolean;
    } = {},
  ): Promise<BookingWriter | undefined> {
    const onProblem = options.onProblem ?? (() => {});
    let writer: BookingWriter | undefined;
    try {
      const rpc = await WorkerRpc.start<{ changes: WriteStep[][] }, WriterReply>(
        options.workerUrl ?? workerEntry(BOOKING_WRITER_WORKER),
        { open: { dbPath, statements, autoCheckpoint: options.autoCheckpoint ?? true } } satisfies WriterRequest,
        (reply) => ("opened" in reply ? true : "error" in reply ? reply.error : "booking writer did not open"),
        START_TIMEOUT_MS,
        {
          name: "booking writer",
          errorOf: (reply) => ("failed" in reply ? reply.failed : undefined),
          onFailure: (error) => writer?.fail(error),
        },
      );
      writer = new BookingWriter(rpc, onProblem);
      return writer;
    } catch (error) {
      onProblem(`booking writer unavailable (${error instanceof Error ? error.message : String(error)}); bookings are written on the main connection`);
      return undefined;
    }
  }

  /** False once the worker failed: the caller then writes on its own connection. */
  get usable(): boolean {
    return this.failure === undefined;
  }

  /** Groups sent and not yet answered. */
  get inFlight(): number {
    return this.rpc.inFlight;
  }

  /** Writes one group in one transaction; resolves with each change's outcome after COMMIT returned. */
  write(changes: WriteStep[][]): Promise<ChangeOutcome[]> {
    if (this.failure) return Promise.reject(this.failure);
    // A group not answered in time fails the writer (stuck or gone): every group waiting gets the error.
    const timer = setTimeout(() => this.fail(new Error("booking writer did not answer")), GROUP_TIMEOUT_MS);
    return this.rpc
      .call({ changes })
      .then((reply) => ("outcomes" in reply ? reply.outcomes : []))
      .finally(() => clearTimeout(timer));
  }

  /**
   * Turns the writer connection's automatic checkpoints on (it was started without them because a
   * BackgroundCheckpointer ran, and that has stopped). Takes effect before the next group is written.
   */
  resumeAutoCheckpoints(): void {
    if (this.failure) return;
    this.rpc.post({ autoCheckpoint: true } satisfies WriterRequest);
  }

  /** Resolves once every group sent has been answered (bounded), then ends the worker. */
  async stop(): Promise<void> {
    const deadline = Date.now() + GROUP_TIMEOUT_MS;
    // Bounded by the deadline: answered groups leave `pending`.
    while (this.rpc.inFlight > 0 && Date.now() < deadline && !this.failure) await Bun.sleep(5);
    this.failure ??= new Error("booking writer stopped");
    this.rpc.terminate();
  }

  /**
   * The worker is gone or stuck: groups still waiting get an error. Whether such a group committed is not
   * known, so its callers are told it failed; repeating a sendTrip with the same requesterResNo is safe.
   */
  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.onProblem(`${error.message}; bookings are written on the main connection from now on`);
    this.rpc.rejectAll(error);
    this.rpc.terminate();
  }
}
