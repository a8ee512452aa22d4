/**
 * Text that came from a partner or a receiver (a farm-in reply, a webhook answer, a refusal message) made fit for
 * any database: NUL (PostgreSQL refuses U+0000 in text and jsonb) and the other C0 controls but tab, line feed and
 * carriage return are dropped, and a lone UTF-16 surrogate (no valid Unicode scalar, refused in UTF-8) becomes
 * U+FFFD. Everything else is kept as it came.
 */
export function storableText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** A parsed JSON value with every string in it, member names included, made storable (see `storableText`). */
export function storableValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return storableText(value);
  if (value === null || typeof value !== "object" || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => storableValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[storableText(k)] = storableValue(v, depth + 1);
  return out;
}
