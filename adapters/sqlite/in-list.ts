/**
 * An `IN (…)` list whose text takes a few forms rather than one per length: its values padded to a size class (the
 * next power of two from 8, at most `max`) by repeating the last one, which matches nothing more. bun:sqlite keeps
 * each statement text it has prepared (Database.query), so a hot read whose list length varies from call to call (a
 * network quote reads the holds, and the names, of the providers it met) prepares each size class once instead of
 * preparing a new statement at nearly every call (docs/performance.md#in-lists-of-a-few-sizes).
 */
export function inList(values: readonly string[], firstPlaceholder: number, max = Number.POSITIVE_INFINITY): { placeholders: string; args: string[] } {
  if (values.length === 0) throw new Error("inList needs at least one value");
  let size = 8;
  while (size < values.length) size *= 2;
  size = Math.max(values.length, Math.min(size, max));
  const args = values.slice();
  while (args.length < size) args.push(values[values.length - 1]);
  return { placeholders: args.map((_, k) => `?${k + firstPlaceholder}`).join(", "), args };
}
