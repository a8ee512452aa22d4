import { Elysia } from "elysia";
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationError,
  type FieldError,
} from "../../domain/errors";
import type { Logger } from "../logging";
import { companyOfRequest } from "./request-context";
import { AccessLog } from "./access-log";

/** Errors that only exist at the HTTP edge. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export interface ErrorBody {
  success: false;
  message: string;
  code: string;
  errors?: FieldError[];
  requestId?: string;
  [extra: string]: unknown;
}

/** The one place where errors become HTTP statuses and bodies. */
export function toErrorResponse(error: unknown, requestId: string): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (error instanceof ValidationError) return { status: 400, body: { success: false, message: error.message, code: error.code, errors: error.errors } };
  if (error instanceof UnauthorizedError)
    return { status: 401, body: { success: false, message: error.message, code: error.code }, headers: { "www-authenticate": "Bearer" } };
  if (error instanceof ForbiddenError) return { status: 403, body: { success: false, message: error.message, code: error.code, ...error.details } };
  if (error instanceof NotFoundError) return { status: 404, body: { success: false, message: error.message, code: error.code } };
  if (error instanceof ConflictError) return { status: 409, body: { success: false, message: error.message, code: error.code, ...error.details } };
  if (error instanceof TooManyRequestsError)
    return {
      status: 429,
      body: { success: false, message: error.message, code: error.code, retryAfter: error.retryAfterSeconds },
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  if (error instanceof DomainError) return { status: 400, body: { success: false, message: error.message, code: error.code } };
  if (error instanceof HttpError) return { status: error.status, body: { success: false, message: error.message, code: error.code } };
  const storage = storageTrouble(error);
  if (storage)
    return {
      status: 503,
      body: { success: false, message: STORAGE_MESSAGES[storage.code], code: storage.code, retryAfter: storage.retryAfter },
      headers: { "retry-after": String(storage.retryAfter) },
    };
  return { status: 500, body: { success: false, message: "Internal error", code: "INTERNAL", requestId } };
}

const STORAGE_MESSAGES = {
  DATABASE_BUSY: "The database is busy; nothing was changed. Send the request again shortly",
  STORAGE_FULL: "The service cannot store anything at the moment; nothing was changed. Send the request again later",
} as const;

/**
 * The storage trouble an error reports, if any: the database locked by another writer (SQLITE_BUSY/LOCKED) or
 * no room left (SQLITE_FULL, or the disk's I/O error), by SQLite's code or — for errors relayed from the booking
 * writer thread, which keep only the message — by SQLite's message. Either way nothing was written.
 */
export function storageTrouble(error: unknown): { code: keyof typeof STORAGE_MESSAGES; retryAfter: number } | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = String((error as { code?: unknown }).code ?? "");
  const message = error.message;
  if (/^SQLITE_(BUSY|LOCKED)/.test(code) || /database (table )?is (locked|busy)/i.test(message)) return { code: "DATABASE_BUSY", retryAfter: 1 };
  if (/^SQLITE_(FULL|IOERR)/.test(code) || /database or disk is full|disk I\/O error|no space left/i.test(message)) return { code: "STORAGE_FULL", retryAfter: 30 };
  return undefined;
}

interface TypeboxIssue {
  path: string;
  message: string;
  value?: unknown;
  schema?: { description?: string; error?: string };
}

/** Elysia's validation issues as field errors; never echoes the submitted value. */
export function fieldErrorsOf(issues: TypeboxIssue[], where: string): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const issue of issues) {
    const path = issue.path.replace(/^\//, "").replace(/\//g, ".");
    const field = path || where;
    if (seen.has(field)) continue;
    seen.add(field);
    // A field that is not there at all is missing, whatever type it would have had.
    const missing = path !== "" && issue.value === undefined;
    out.push({ field, message: missing ? "is required" : (issue.schema?.error ?? issue.message.replace(/^Expected/, "must be").toLowerCase()) });
  }
  return out;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Requests answered by handling a rewritten copy of them (see platform-paths.ts): the copy's pass logs them. */
export const forwardedRequests = new WeakSet<Request>();

/** The request id of a request: a valid incoming X-Request-Id, else a new UUID. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

export interface EdgeOptions {
  maxBodyBytes: number;
  /** Larger limits for specific paths (exact match, without query). */
  bodyLimits?: Record<string, number>;
  logger: Logger;
  /** Called once per answered request with its route template (empty when no route matched) and duration. */
  onResponse?: (method: string, route: string, status: number, seconds: number) => void;
  /** Called for every 401 and 403 answer (the audit trail's "denied access"). */
  onDenied?: (request: Request, status: number, code: string) => void;
}

const WITH_BODY = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a request body as text, refusing it as soon as it grows past `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<string> {
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
 * What is wrong with the shape of a parsed JSON value: nesting deeper than `max` arrays/objects, or an object
 * key that shadows a built-in method. Iterative, so a deep value cannot overflow the stack.
 */
export function jsonShapeProblem(value: unknown, max: number): "too-deep" | { key: string } | undefined {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > max) return "too-deep";
    if (!Array.isArray(v)) for (const key of Object.keys(v)) if (RESERVED_KEYS.has(key)) return { key };
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

const NUL_MESSAGE = "Text in the request must not contain the NUL character (U+0000)";

/** The path of an absolute request URL (as URL's pathname, without parsing a URL object on every request). */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, "PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${limit} bytes`);
}

/**
 * The shared HTTP edge of both surfaces: request ids, size-limited JSON parsing,
 * the error envelope, JSON 404s and one log line per request.
 */
export function edge(options: EdgeOptions) {
  const { logger } = options;
  const limitFor = (path: string) => options.bodyLimits?.[path] ?? options.maxBodyBytes;
  const started = new WeakMap<Request, number>();
  const accessLog = new AccessLog(logger);

  return new Elysia({ name: "tripswitch-edge" })
    .onRequest(({ request, set }) => {
      started.set(request, performance.now());
      set.headers["x-request-id"] = requestIdOf(request);
      // A NUL in the path or the query (only %00 encodes one) is refused like one in the body.
      if (request.url.includes("%00")) {
        set.status = 400;
        return { success: false, message: NUL_MESSAGE, code: "NUL_CHARACTER" };
      }
      if (WITH_BODY.has(request.method)) {
        const declared = Number(request.headers.get("content-length") ?? "NaN");
        const limit = limitFor(pathOf(request.url));
        if (declared > limit) {
          set.status = 413;
          return { success: false, message: `The request body exceeds the limit of ${limit} bytes`, code: "PAYLOAD_TOO_LARGE" };
        }
      }
    })
    .onParse({ as: "global" }, async ({ request, contentType, path }) => {
      const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
      // JSON only, as documented (GNet clients send application/json, with or without a charset).
      if (type && type !== "application/json" && !type.endsWith("+json"))
        throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", "The request body must be JSON (Content-Type: application/json)");
      const text = await readLimited(request, limitFor(path));
      // null, not undefined: the body is handled here, so Elysia's own JSON parser (below) never runs.
      if (text.trim() === "") return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new HttpError(400, "MALFORMED_JSON", "The request body is not valid JSON");
      }
      // The validator's error report serialises the value with indentation, quadratic in depth: a 120 KB body
      // nested 20,000 deep took seconds and gigabytes. No request of ours nests deeper than a handful of levels.
      const problem = jsonShapeProblem(parsed, MAX_JSON_DEPTH);
      if (problem === "too-deep") throw new HttpError(400, "JSON_TOO_DEEP", `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      // The validator's error report turns values into strings: an object whose "toString" is a number made it
      // throw (a 500). No field of ours has such a name.
      if (problem) throw new HttpError(400, "RESERVED_KEY", `The request body uses the reserved key "${problem.key}"`);
      // No text field of ours holds a NUL, and PostgreSQL cannot store one: refused the same on either database.
      if (text.includes("\\u0000") && holdsNul(parsed)) throw new HttpError(400, "NUL_CHARACTER", NUL_MESSAGE);
      return parsed;
    })
    // Never reached (the parser above always answers); it tells the OpenAPI generator that bodies are JSON.
    .onParse({ as: "global" }, { fn: "json" } as never)
    .onError({ as: "global" }, ({ code, error: thrown, set, request, path }) => {
      let error: unknown = thrown;
      const requestId = String(set.headers["x-request-id"] ?? requestIdOf(request));
      set.headers["x-request-id"] = requestId;
      set.headers["content-type"] = "application/json";
      if (code === "VALIDATION") {
        const v = error as unknown as { type: string; all: TypeboxIssue[] };
        const errors = fieldErrorsOf(v.all ?? [], v.type);
        set.status = 400;
        return { success: false, message: describe(errors, v.type), code: "VALIDATION_FAILED", errors };
      }
      if (code === "PARSE" && (error as Error).cause instanceof HttpError) error = (error as Error).cause as HttpError;
      else if (code === "PARSE") {
        set.status = 400;
        return { success: false, message: "The request body is not valid JSON", code: "MALFORMED_JSON" };
      }
      if (code === "NOT_FOUND") {
        set.status = 404;
        return { success: false, message: `No route for ${request.method} ${path}`, code: "ROUTE_NOT_FOUND" };
      }
      const mapped = toErrorResponse(error, requestId);
      if (mapped.status === 503) logger.warn({ requestId, method: request.method, path, code: mapped.body.code, err: error }, "storage unavailable");
      else if (mapped.status >= 500) logger.error({ requestId, method: request.method, path, err: error }, "unhandled error");
      if ((mapped.status === 401 || mapped.status === 403) && mapped.body.code !== "INVALID_CREDENTIALS") options.onDenied?.(request, mapped.status, mapped.body.code);
      set.status = mapped.status;
      for (const [k, v] of Object.entries(mapped.headers ?? {})) set.headers[k] = v;
      return mapped.body;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, path, route }) => {
      if (forwardedRequests.has(request)) return;
      const t0 = started.get(request);
      const status = typeof set.status === "number" ? set.status : 200;
      if (t0 !== undefined) options.onResponse?.(request.method, route, status, (performance.now() - t0) / 1000);
      accessLog.record({
        requestId: set.headers["x-request-id"],
        method: request.method,
        route: route || path,
        path,
        company: companyOfRequest.get(request),
        status,
        ms: t0 === undefined ? undefined : Math.round((performance.now() - t0) * 100) / 100,
      });
    });
}

function describe(errors: FieldError[], where: string): string {
  if (errors.length === 0) return `Invalid ${where}`;
  if (errors.length === 1) return `Invalid input: ${errors[0].field} ${errors[0].message}`;
  return `Invalid input in ${errors.length} fields: ${errors.map((e) => e.field).join(", ")}`;
}
