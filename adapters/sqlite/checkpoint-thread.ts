/// <reference lib="webworker" />
// The checkpoint worker's code (its entry point is under src/workers/). Copies committed WAL pages back into
// the database file (a SQLite checkpoint) off the main thread. The service's own connection has automatic
// checkpoints off: one of them, run inside whichever commit crossed the WAL threshold, copies the WAL's pages
// and syncs the file on the event loop, and every request waiting behind that commit waits for it too.
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointJob {
  dbPath: string;
  intervalMs: number;
}

/** Ends the checkpoints after a last one; answered with `stopped`. */
export interface CheckpointStop {
  id: number;
  stop: true;
}

/** What the worker tells its owner: it is running (once), a checkpoint failed (it keeps trying), or it stopped. */
export type CheckpointReply = { started: true } | { error: string } | { id: number; stopped: true };

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function checkpoint(): void {
  try {
    // PASSIVE: copies what no reader still needs, without waiting for or blocking readers and writers.
    db?.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies CheckpointReply);
  }
}

/** Serves the checkpointer's requests on this worker thread. */
export function serveCheckpoints(): void {
  self.onmessage = onRequest;
}

function onRequest(event: MessageEvent<CheckpointJob | CheckpointStop>): void {
  if ("stop" in event.data) {
    if (timer) clearInterval(timer);
    timer = undefined;
    checkpoint();
    db?.close();
    db = undefined;
    self.postMessage({ id: event.data.id, stopped: true } satisfies CheckpointReply);
    return;
  }
  if (db) return;
  try {
    const job = event.data as CheckpointJob;
    db = new Database(job.dbPath);
    db.exec("PRAGMA busy_timeout = 5000");
    // The copy is synced into the database file before the WAL is reused: the same guarantee as the service's.
    db.exec("PRAGMA synchronous = FULL");
    timer = setInterval(checkpoint, job.intervalMs);
    self.postMessage({ started: true } satisfies CheckpointReply);
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies CheckpointReply);
  }
}
