import { Elysia } from "elysia";
import type { Logger } from "../logging";
import { companyOfRequest, forwardedRequests, pathOf, requestIdOf } from "./request-context";
import { AccessLog } from "./access-log";
import { MAX_OBJECT_MEMBERS } from "../../domain/trips/booking-bounds";
import { withDomainErrors } from "./body-checks";
import { describe, fieldErrorsOf, HttpError, toErrorResponse, type TypeboxIssue } from "./errors";
import { holdsNul, jsonShapeProblem, MAX_JSON_DEPTH, NUL_MESSAGE, readLimited } from "./body-guards";

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

/** Paths whose routes choose their own Cache-Control (static pages and assets, no account data). */
const OWN_CACHING = /^\/(console|docs)(\/|$)/;

/**
 * The shared HTTP edge of both surfaces: request ids, size-limited JSON parsing,
 * the error envelope, JSON 404s and one log line per request.
 */
export function edge(options: EdgeOptions) {
  const { logger } = options;
  const limitFor = (path: string) => options.bodyLimits?.[path] ?? options.maxBodyBytes;
  const started = new WeakMap<Request, number>();
  const accessLog = new AccessLog(logger);

  return (
    new Elysia({ name: "tripswitch-edge" })
      .onRequest(({ request, set }) => {
        started.set(request, performance.now());
        set.headers["x-request-id"] = requestIdOf(request);
        // API answers carry passenger data: never stored by a browser or proxy, never sniffed into HTML. The console
        // and the docs UI set their own caching for their pages and assets.
        set.headers["x-content-type-options"] = "nosniff";
        if (!OWN_CACHING.test(pathOf(request.url))) set.headers["cache-control"] = "no-store";
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
        // An object of tens of thousands of members costs every step after this (copy, compare, store) dearly,
        // and a booking keeps what UPDATEs merge: no object of ours has more than a few dozen members.
        if (problem === "too-wide") throw new HttpError(400, "JSON_TOO_WIDE", `An object in the request body has more than ${MAX_OBJECT_MEMBERS} members`);
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
          const schemaErrors = fieldErrorsOf(v.all ?? [], v.type);
          const errors = v.type === "body" ? withDomainErrors(request, schemaErrors) : schemaErrors;
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
        if ((mapped.status === 401 || mapped.status === 403) && mapped.body.code !== "INVALID_CREDENTIALS")
          options.onDenied?.(request, mapped.status, mapped.body.code);
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
      })
  );
}
