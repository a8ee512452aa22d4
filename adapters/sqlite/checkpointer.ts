import type { Database } from "bun:sqlite";
import type { CheckpointJob, CheckpointReply, CheckpointStop } from "./checkpoint-thread";
import { workerEntry } from "../runtime";
import { WorkerRpc } from "../worker-rpc";

/** The checkpoint worker's entry point in src/workers/ (its code: checkpoint-thread.ts). */
export const CHECKPOINT_WORKER = "checkpoint.worker.ts";

export interface CheckpointerOptions {
  /** How often the worker checkpoints (default 500 ms). */
  intervalMs?: number;
  /** The worker's code (tests point it elsewhere); defaults to CHECKPOINT_WORKER. */
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
  private worker: WorkerRpc<Omit<CheckpointStop, "id">, CheckpointReply> | undefined;
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
        checkpointer.worker?.terminate();
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
    await worker.call({ stop: true }, { timeoutMs: STOP_WAIT_MS }).catch(() => {});
    worker.terminate();
    this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  }
}

function startWorker(dbPath: string, options: CheckpointerOptions, onDied: () => void): Promise<WorkerRpc<Omit<CheckpointStop, "id">, CheckpointReply>> {
  let started = false;
  return WorkerRpc.start<Omit<CheckpointStop, "id">, CheckpointReply>(
    options.workerUrl ?? workerEntry(CHECKPOINT_WORKER),
    { dbPath, intervalMs: options.intervalMs ?? 500 } satisfies CheckpointJob,
    (reply) => ("started" in reply ? true : "error" in reply ? reply.error : "checkpoint worker did not start"),
    START_TIMEOUT_MS,
    {
      name: "checkpoint worker",
      // From now on a failed checkpoint is reported and retried at the next interval.
      onEvent: (reply) => {
        if ("error" in reply) options.onProblem?.(`background checkpoint failed: ${reply.error}`);
      },
      onFailure: (error) => {
        if (!started) return;
        options.onProblem?.(`${error.message}; the connection checkpoints itself`);
        onDied();
      },
    },
  ).then((rpc) => {
    started = true;
    return rpc;
  });
}
