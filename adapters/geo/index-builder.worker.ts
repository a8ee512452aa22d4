/// <reference lib="webworker" />
// Builds the fleet index off the main thread. Given the database path it reads the active fleet itself
// on a read-only connection, so a million rows never become objects on the main thread; the built
// columns and trees are transferred back, not copied.
import { Database } from "bun:sqlite";
import { activeIndexRows } from "../sqlite/fleet-repository";
import { buildIndexParts, transferablesOf, type IndexRow } from "./index-parts";

declare const self: Worker;

/** What to build from: the database file (read here), or rows read by the caller. */
export type BuildJob = { dbPath: string; nodeSize?: number } | { rows: IndexRow[]; nodeSize?: number };
export type BuildRequest = BuildJob & { id: number };

self.onmessage = (event: MessageEvent<BuildRequest>) => {
  const request = event.data;
  try {
    let parts;
    if ("dbPath" in request) {
      const db = new Database(request.dbPath, { readonly: true });
      try {
        db.exec("PRAGMA busy_timeout = 5000");
        // One read transaction: the whole fleet as of one moment.
        db.exec("BEGIN");
        parts = buildIndexParts(activeIndexRows(db), request.nodeSize);
        db.exec("COMMIT");
      } finally {
        db.close();
      }
    } else parts = buildIndexParts(request.rows, request.nodeSize);
    self.postMessage({ id: request.id, parts }, transferablesOf(parts));
  } catch (error) {
    self.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
};
