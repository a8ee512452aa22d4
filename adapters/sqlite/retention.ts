import type { Database } from "bun:sqlite";
import { RETENTION, type Retention } from "../../domain/retention";
import { RETENTION_BATCH, RETENTION_JOBS, RETENTION_MAX_BATCHES, scheduleRetentionRuns } from "../sql/retention";

/** Deletes the rows past their retention; returns how many per table. */
export function pruneExpired(sqlite: Database, now: number, retention: Retention = RETENTION): Record<string, number> {
  const deleted: Record<string, number> = {};
  for (const [period, table, condition] of RETENTION_JOBS) {
    const statement = sqlite.query(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${condition} LIMIT ${RETENTION_BATCH})`);
    let total = 0;
    for (let batch = 0; batch < RETENTION_MAX_BATCHES; batch++) {
      const { changes } = statement.run(now - retention[period]);
      total += changes;
      if (changes < RETENTION_BATCH) break;
    }
    deleted[table] = total;
  }
  return deleted;
}

/** Runs `pruneExpired` 5 s from now and then every `intervalMs` (unref'd: it never keeps the process alive). Returns a stop function. */
export function scheduleRetention(
  sqlite: Database,
  log: (deleted: Record<string, number>) => void,
  onError: (error: unknown) => void,
  intervalMs = 3600_000,
): () => void {
  return scheduleRetentionRuns((now) => pruneExpired(sqlite, now), log, onError, intervalMs);
}
