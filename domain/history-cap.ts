/** Entries a booking keeps of its changeLogs and transactionErrors; older ones are dropped and counted. */
export const MAX_CHANGE_LOGS = 200;
export const MAX_TRANSACTION_ERRORS = 100;

/** Marks the entry standing for dropped ones (no party's change has this source or code). */
export const TRIMMED = "TRIMMED";

const COUNT = /^(\d+) earlier /;

/**
 * Keeps a booking's history list within `max` entries: the newest `max - 1` stay, and the first entry says how
 * many older ones were dropped in all (earlier trims included), with the time of the newest dropped one. So a
 * booking updated forever (STOP → STOP …) stays the same size, and its history still says that it was.
 */
export function capHistory<T extends { timestamp: string }>(entries: readonly T[], max: number, summary: (dropped: number, timestamp: string) => T, countOf: (entry: T) => number | undefined): T[] {
  if (entries.length <= max) return entries as T[];
  const earlier = countOf(entries[0]);
  const keep = entries.slice(entries.length - (max - 1));
  const droppedEntries = entries.slice(earlier === undefined ? 0 : 1, entries.length - (max - 1));
  const dropped = (earlier ?? 0) + droppedEntries.length;
  const timestamp = droppedEntries.at(-1)?.timestamp ?? entries[0].timestamp;
  return [summary(dropped, timestamp), ...keep];
}

/** changeLogs within MAX_CHANGE_LOGS. */
export function capChangeLogs<T extends { timestamp: string; changeSource: string; changeDesc: string }>(logs: readonly T[]): T[] {
  return capHistory(
    logs,
    MAX_CHANGE_LOGS,
    (n, timestamp) => ({ timestamp, changeSource: TRIMMED, changeDesc: `${n} earlier change${n === 1 ? "" : "s"} not kept` }) as T,
    (e) => (e.changeSource === TRIMMED ? Number(COUNT.exec(e.changeDesc)?.[1] ?? 0) : undefined),
  );
}

/** transactionErrors within MAX_TRANSACTION_ERRORS. */
export function capTransactionErrors<T extends { timestamp: string; errCode: string; errDesc: string }>(errors: readonly T[]): T[] {
  return capHistory(
    errors,
    MAX_TRANSACTION_ERRORS,
    (n, timestamp) => ({ timestamp, errCode: TRIMMED, errDesc: `${n} earlier error${n === 1 ? "" : "s"} not kept` }) as T,
    (e) => (e.errCode === TRIMMED ? Number(COUNT.exec(e.errDesc)?.[1] ?? 0) : undefined),
  );
}
