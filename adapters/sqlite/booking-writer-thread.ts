/// <reference lib="webworker" />
// The booking writer worker's code (its entry point is under src/workers/). Writes groups of booking changes
// in one IMMEDIATE transaction on its own connection (synchronous=FULL), so the commit's fsync blocks this
// thread and not the service's event loop. The main thread decides each change and sends the resulting
// statements; each change runs in its own savepoint, and one whose precondition fails (the booking changed
// since it was read, or its requesterResNo was taken) is rolled back alone and reported as a conflict, for
// the main thread to decide again.
import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { PROVIDER_RES_NO_TAKEN, TAKEN } from "./unique-keys";
import { HOLD_TAKEN } from "../sql/hold-sql";

declare const self: Worker;

/**
 * One statement of a change; with `mustChange`, changing no row is a conflict (an optimistic version check), or with
 * "hold" the change's error HOLD_TAKEN (a cascade move's next vehicle is held: the change fails, nothing kept).
 */
export interface WriteStep {
  statement: number;
  args: SQLQueryBindings[];
  mustChange?: boolean | "hold";
}

export type WriterRequest =
  | { open: { dbPath: string; statements: string[]; autoCheckpoint: boolean } }
  /** The background checkpoints stopped: this connection checkpoints itself from now on. */
  | { autoCheckpoint: true }
  | { id: number; changes: WriteStep[][] };

/** SQLite's default threshold, as on every connection that checkpoints itself. */
const AUTO_CHECKPOINT_PAGES = 1000;

export type ChangeOutcome = { ok: true } | { conflict: true } | { error: string };

export type WriterReply = { opened: true } | { id: number; outcomes: ChangeOutcome[] } | { id: number; failed: string } | { error: string };

let db: Database | undefined;
let statements: Statement[] = [];
let savepoint: Statement;
let release: Statement;
let rollbackTo: Statement;

class Conflict extends Error {}

function applyChange(steps: WriteStep[]): ChangeOutcome {
  savepoint.run();
  try {
    for (const step of steps) {
      const result = statements[step.statement].run(...step.args);
      if (step.mustChange && result.changes === 0) throw step.mustChange === "hold" ? new Error(HOLD_TAKEN) : new Conflict();
    }
    release.run();
    return { ok: true };
  } catch (error) {
    // SQLITE_FULL and I/O errors roll the whole transaction back: the group fails with that error.
    if (!db?.inTransaction) throw error;
    rollbackTo.run();
    release.run();
    if (error instanceof Conflict || (error instanceof Error && TAKEN.test(error.message) && !PROVIDER_RES_NO_TAKEN.test(error.message)))
      return { conflict: true };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Serves the booking writer's requests on this worker thread. */
export function serveBookingWriter(): void {
  self.onmessage = onRequest;
}

function onRequest(event: MessageEvent<WriterRequest>): void {
  const request = event.data;
  if ("open" in request) {
    try {
      db = new Database(request.open.dbPath);
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA synchronous = FULL");
      db.exec("PRAGMA foreign_keys = ON");
      // Checkpoints run in the background (BackgroundCheckpointer); without it, this connection — which makes
      // most commits — must checkpoint itself, or the WAL would grow without bound.
      if (!request.open.autoCheckpoint) db.exec("PRAGMA wal_autocheckpoint = 0");
      statements = request.open.statements.map((sql) => db!.prepare(sql));
      savepoint = db.prepare("SAVEPOINT booking_change");
      release = db.prepare("RELEASE booking_change");
      rollbackTo = db.prepare("ROLLBACK TO booking_change");
      self.postMessage({ opened: true } satisfies WriterReply);
    } catch (error) {
      self.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies WriterReply);
    }
    return;
  }
  if ("autoCheckpoint" in request) {
    db?.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    return;
  }
  const connection = db;
  if (!connection) {
    self.postMessage({ id: request.id, failed: "booking writer is not open" } satisfies WriterReply);
    return;
  }
  const outcomes: ChangeOutcome[] = [];
  try {
    connection.exec("BEGIN IMMEDIATE");
    for (const change of request.changes) outcomes.push(applyChange(change));
    connection.exec("COMMIT");
  } catch (error) {
    // BEGIN or COMMIT failed: nothing of the group is durable, so no change is reported done.
    try {
      if (connection.inTransaction) connection.exec("ROLLBACK");
    } catch {}
    self.postMessage({ id: request.id, failed: error instanceof Error ? error.message : String(error) } satisfies WriterReply);
    return;
  }
  self.postMessage({ id: request.id, outcomes } satisfies WriterReply);
}
