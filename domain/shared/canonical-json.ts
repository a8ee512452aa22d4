// Canonical JSON: the one serialisation under content fingerprints and Idempotency-Key comparisons.
import { sortKeys } from "./sorted-keys";

/** JSON with object keys sorted and undefined members dropped, so equal content serialises equally. */
export function canonicalJson(value: unknown): string {
  // Fast path: the value with every object's keys re-inserted in sorted order (copying only objects that need
  // it), serialised by the native JSON.stringify — byte for byte what the walk below produces, and much faster.
  const sorted = sortedForJson(value);
  if (sorted !== UNSUPPORTED) return JSON.stringify(sorted) ?? "null";
  return canonicalJsonWalk(value);
}

const UNSUPPORTED = Symbol("unsupported");
/** Keys that JavaScript orders numerically ahead of all others, whatever the insertion order. */
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * `value` with the keys of every plain object in sorted order, or UNSUPPORTED where JSON.stringify of the result
 * could differ from canonicalJsonWalk: functions, symbols and bigints, objects that are not plain (toJSON, class
 * instances), and keys that cannot be re-ordered by insertion (array-index keys) or re-inserted ("__proto__").
 */
function sortedForJson(value: unknown): unknown {
  if (value === null) return value;
  const type = typeof value;
  if (type !== "object") return type === "function" || type === "symbol" || type === "bigint" ? UNSUPPORTED : value;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return UNSUPPORTED;
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const child = value[i];
      const next = sortedForJson(child);
      if (next === UNSUPPORTED) return UNSUPPORTED;
      if (next !== child) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return UNSUPPORTED;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const c = key.charCodeAt(0);
    if ((c >= 48 && c <= 57 && INDEX_KEY.test(key)) || key === "__proto__") return UNSUPPORTED;
    if (i > 0 && keys[i - 1] > key) inOrder = false;
  }
  // Sorted by UTF-16 code units, the order `<` and canonicalJsonWalk use.
  if (!inOrder) sortKeys(keys);
  let out: Record<string, unknown> | undefined = inOrder ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const child = record[key];
    const next = sortedForJson(child);
    if (next === UNSUPPORTED) return UNSUPPORTED;
    if (out) out[key] = next;
    else if (next !== child) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = record[keys[j]];
      out[key] = next;
    }
  }
  return out ?? value;
}

/** The reference walk: canonical JSON of any value, one member at a time. */
export function canonicalJsonWalk(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  // Plain loops: the intermediate arrays of entries/filter/map cost more than the hash.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + canonicalJsonWalk(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  // Sorted by UTF-16 code units, the order `<` and canonicalJsonWalk use.
  const keys = sortKeys(Object.keys(record));
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJsonWalk(v)}`;
    first = false;
  }
  return `${out}}`;
}
