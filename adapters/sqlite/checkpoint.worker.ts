/// <reference lib="webworker" />
// Copies committed WAL pages back into the database file (a SQLite checkpoint) off the main thread. The
// service's own connection has automatic checkpoints off: one of them, run inside whichever commit crossed
// the WAL threshold, copies ~1,000 pages and syncs the file on the event loop, and every request waiting
// behind that commit waited for it too (search p99 tripled while fleet changes arrived).
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CheckpointJob {
  dbPath: string;
  intervalMs: number;
}

/** What the worker tells its owner: it is running (once), or a checkpoint failed (it keeps trying). */
export type CheckpointReply = { started: true } | { error: string };

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

self.onmessage = (event: MessageEvent<CheckpointJob | "stop">) => {
  if (event.data === "stop") {
    if (timer) clearInterval(timer);
    timer = undefined;
    checkpoint();
    db?.close();
    db = undefined;
    self.postMessage({ stopped: true });
    return;
  }
  if (db) return;
  try {
    const job = event.data;
    db = new Database(job.dbPath);
    db.exec("PRAGMA busy_timeout = 5000");
    // The copy is synced into the database file before the WAL is reused: the same guarantee as the service's.
    db.exec("PRAGMA synchronous = FULL");
    timer = setInterval(checkpoint, job.intervalMs);
    self.postMessage({ started: true } satisfies CheckpointReply);
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies CheckpointReply);
  }
};
