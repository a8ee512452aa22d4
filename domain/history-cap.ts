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
export function capHistory<T extends { timestamp: string }>(
  entries: readonly T[],
  max: number,
  summary: (dropped: number, timestamp: string) => T,
  countOf: (entry: T) => number | undefined,
): T[] {
  if (entries.length <= max) return entries as T[];
  const earlier = countOf(entries[0]);
  const keep = entries.slice(entries.length - (max - 1));
  const droppedEntries = entries.slice(earlier === undefined ? 0 : 1, entries.length - (max - 1));
  const dropped = (earlier ?? 0) + droppedEntries.length;
  const timestamp = droppedEntries.at(-1)?.timestamp ?? entries[0].timestamp;
  return [summary(dropped, timestamp), ...keep];
}

/**
 * The cap of a history list whose entries say what happened in a `kind` and a `desc` member: the summary entry
 * fills both (kind TRIMMED; desc "<n> earlier <noun>s not kept", read back on the next trim).
 */
function capBy<K extends string, D extends string>(max: number, kind: K, desc: D, noun: string) {
  return <T extends { timestamp: string } & Record<K | D, string>>(entries: readonly T[]): T[] =>
    capHistory(
      entries,
      max,
      (n, timestamp) => ({ timestamp, [kind]: TRIMMED, [desc]: `${n} earlier ${noun}${n === 1 ? "" : "s"} not kept` }) as unknown as T,
      (e) => (e[kind] === TRIMMED ? Number(COUNT.exec(e[desc])?.[1] ?? 0) : undefined),
    );
}

/** changeLogs within MAX_CHANGE_LOGS. */
export const capChangeLogs = capBy(MAX_CHANGE_LOGS, "changeSource", "changeDesc", "change");

/** transactionErrors within MAX_TRANSACTION_ERRORS. */
export const capTransactionErrors = capBy(MAX_TRANSACTION_ERRORS, "errCode", "errDesc", "error");
