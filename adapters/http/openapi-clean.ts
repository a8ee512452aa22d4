/**
 * Makes the document Elysia's OpenAPI plugin generates a valid OpenAPI 3.1 document: drops the keys that are not
 * OpenAPI there — `nullable: true` (3.0's spelling; the 3.1 schemas already say `type: [..., "null"]`), the
 * `error` message a TypeBox schema carries for validation answers, and Elysia's `hide` flag on operations.
 * A key is dropped only with a value of its own kind (a flag, a message), so a property that happens to be
 * called `error` or `hide` (whose value is a schema) stays; examples are copied untouched.
 *
 * What the service sends (`responses`, and the `webhooks` it POSTs) says what it sends: Elysia's `t.Integer` reads
 * "a string of digits or an integer" (`format: "integer"`, a format no JSON Schema validator knows), the leniency
 * of a request, but an answer's integer is a JSON integer (docs/security.md#conformance).
 */
export function cleanOpenApi<T>(document: T): T {
  return clean(document, false) as T;
}

const DROPPED: Record<string, string> = { nullable: "boolean", error: "string", hide: "boolean" };

/** Where the schemas describe what the service sends. */
const SENT = new Set(["responses", "webhooks"]);

function clean(value: unknown, sent: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => clean(v, sent));
  if (value === null || typeof value !== "object") return value;
  if (sent) {
    const integer = sentInteger(value as Record<string, unknown>);
    if (integer) return clean(integer, sent);
  }
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (DROPPED[key] !== undefined && typeof member === DROPPED[key]) continue;
    out[key] = key === "example" || key === "examples" ? member : clean(member, sent || SENT.has(key));
  }
  return out;
}

/**
 * Elysia's integer, `anyOf: [{type: "string", format: "integer", …}, {type: "integer", …}]` (with the outer
 * schema's description and examples beside it), as the integer alone; anything else: undefined.
 */
function sentInteger(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const [digits, integer] = branches as Array<Record<string, unknown>>;
  if (digits?.type !== "string" || digits.format !== "integer" || integer?.type !== "integer") return undefined;
  const { anyOf: _union, ...outer } = schema;
  return { ...outer, ...integer };
}
