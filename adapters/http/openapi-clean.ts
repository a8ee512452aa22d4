/**
 * Makes the document Elysia's OpenAPI plugin generates a valid OpenAPI 3.1 document: drops the keys that are not
 * OpenAPI there — `nullable: true` (3.0's spelling; the 3.1 schemas already say `type: [..., "null"]`), the
 * `error` message a TypeBox schema carries for validation answers, and Elysia's `hide` flag on operations.
 * A key is dropped only with a value of its own kind (a flag, a message), so a property that happens to be
 * called `error` or `hide` (whose value is a schema) stays; examples are copied untouched.
 */
export function cleanOpenApi<T>(document: T): T {
  return clean(document) as T;
}

const DROPPED: Record<string, string> = { nullable: "boolean", error: "string", hide: "boolean" };

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (DROPPED[key] !== undefined && typeof member === DROPPED[key]) continue;
    out[key] = key === "example" || key === "examples" ? member : clean(member);
  }
  return out;
}
