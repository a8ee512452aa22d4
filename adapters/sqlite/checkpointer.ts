import type { Database } from "bun:sqlite";
import type { CheckpointJob, CheckpointReply } from "./checkpoint.worker";
import { workerEntry } from "../runtime";

export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 500 ms). */
  intervalMs?: number;
  /** The worker's code (tests point it elsewhere); defaults to checkpoint.worker.ts. */
  workerUrl?: string;
  /** Told when checkpoints move back onto the connection (the worker could not start) or one failed. */
  onProblem?: (message: string) => void;
}

/** SQLite's default: a checkpoint by the committing connection once the WAL holds this many pages. */
const AUTO_CHECKPOINT_PAGES = 1000;
const START_TIMEOUT_MS = 5_000;
const STOP_WAIT_MS = 2_000;

/**
 * Moves WAL checkpoints off the connection that commits: automatic checkpoints are turned off on `db` and a
 * worker checkpoints the file every `intervalMs` on its own connection. If the worker cannot start, the
 * connection's automatic checkpoints come back on, so the WAL never grows without bound.
 */
export class BackgroundCheckpointer {
  private worker: Worker | undefined;
  private readonly lostListeners: Array<() => void> = [];

  private constructor(private readonly db: Database) {}

  /** Starts checkpointing `db`'s file in the background; resolves once the worker runs (or fell back). */
  static async start(db: Database, options: CheckpointerOptions = {}): Promise<BackgroundCheckpointer> {
    const checkpointer = new BackgroundCheckpointer(db);
    if (db.filename === ":memory:" || db.filename === "") return checkpointer;
    db.exec("PRAGMA wal_autocheckpoint = 0");
    try {
      checkpointer.worker = await startWorker(db.filename, options, () => {
        // A worker that died after starting: the connection checkpoints itself again.
        checkpointer.worker = undefined;
        db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
        for (const listener of checkpointer.lostListeners) listener();
      });
    } catch (error) {
      db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
      options.onProblem?.(`background checkpoints unavailable (${error instanceof Error ? error.message : String(error)}); the connection checkpoints itself`);
    }
    return checkpointer;
  }

  /**
   * `listener` runs if the worker dies after starting. Other connections that turned their automatic
   * checkpoints off because this ran (the booking writer's) must turn them on again then, as `db`'s are.
   */
  onWorkerLost(listener: () => void): void {
    this.lostListeners.push(listener);
  }

  /** True while the worker checkpoints (false after a fallback or stop). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Runs a last checkpoint in the worker, ends it, and gives the connection its automatic checkpoints back. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, STOP_WAIT_MS);
      worker.addEventListener("message", (event: MessageEvent) => {
        if ((event.data as { stopped?: true }).stopped) {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.postMessage("stop");
    });
    worker.terminate();
    this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  }
}

function startWorker(dbPath: string, options: CheckpointerOptions, onDied: () => void): Promise<Worker> {
  const worker = new Worker(options.workerUrl ?? workerEntry("adapters/sqlite/checkpoint.worker.ts"));
  // It must never keep a finished process alive.
  (worker as unknown as { unref(): void }).unref();
  return new Promise<Worker>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      worker.terminate();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error("checkpoint worker did not start")), START_TIMEOUT_MS);
    worker.onerror = (event) => fail(new Error(event.message || "checkpoint worker failed"));
    worker.onmessage = (event: MessageEvent<CheckpointReply>) => {
      const reply = event.data;
      if ("started" in reply) {
        clearTimeout(timer);
        // From now on a failed checkpoint is reported and retried at the next interval.
        worker.onmessage = (later: MessageEvent<CheckpointReply>) => {
          if ("error" in later.data) options.onProblem?.(`background checkpoint failed: ${later.data.error}`);
        };
        worker.onerror = (later) => {
          options.onProblem?.(`checkpoint worker failed: ${later.message}; the connection checkpoints itself`);
          worker.terminate();
          onDied();
        };
        resolve(worker);
      } else if ("error" in reply) fail(new Error(reply.error));
    };
    worker.postMessage({ dbPath, intervalMs: options.intervalMs ?? 500 } satisfies CheckpointJob);
  });
}
