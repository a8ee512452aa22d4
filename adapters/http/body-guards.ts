import { MAX_OBJECT_MEMBERS } from "../../domain/trips/booking-bounds";
import { HttpError } from "./errors";

// What the edge checks of a request body before any route sees it: its size, encoding and shape.

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a request body as text, refusing it as soon as it grows past `limit` bytes. */
export async function readLimited(request: Request, limit: number): Promise<string> {
  const header = request.headers.get("content-length");
  const declared = Number(header ?? "NaN");
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return "";
  let bytes: Uint8Array;
  if (header !== null && declared >= 0) {
    // A declared length is what the server reads, no more (it frames the body by it): read it in one piece.
    bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
  } else {
    // Chunked: count while reading, and stop as soon as the body passes the limit.
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
    bytes = Buffer.concat(chunks);
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new HttpError(400, "INVALID_ENCODING", "The request body is not valid UTF-8");
  }
}

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 32;

const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype", "toString", "valueOf", "toJSON"]);

/**
 * What is wrong with the shape of a parsed JSON value: nesting deeper than `max` arrays/objects, an object of more
 * than `maxMembers` members, or an object key that shadows a built-in method. Iterative, so a deep value cannot
 * overflow the stack.
 */
export function jsonShapeProblem(value: unknown, max: number, maxMembers = MAX_OBJECT_MEMBERS): "too-deep" | "too-wide" | { key: string } | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > max) return "too-deep";
    if (!Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length > maxMembers) return "too-wide";
      for (const key of keys) if (RESERVED_KEYS.has(key)) return { key };
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Whether a parsed JSON value holds U+0000 in a string or a key (iterative: a deep value cannot overflow the stack). */
export function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000")) return true;
    } else if (v !== null && typeof v === "object") {
      if (!Array.isArray(v) && Object.keys(v).some((k) => k.includes("\u0000"))) return true;
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
    }
  }
  return false;
}

export const NUL_MESSAGE = "Text in the request must not contain the NUL character (U+0000)";

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${limit} bytes`);
}
