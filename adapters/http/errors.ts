import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  TooLargeError,
  TooManyRequestsError,
  UnauthorizedError,
  ValidationError,
  type FieldError,
} from "../../domain/errors";

/** Errors that only exist at the HTTP edge. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
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
  if (error instanceof TooLargeError) return { status: 413, body: { success: false, message: error.message, code: error.code, ...error.details } };
  if (error instanceof TooManyRequestsError)
    return {
      status: 429,
      body: { success: false, message: error.message, code: error.code, ...error.details, retryAfter: error.retryAfterSeconds },
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  if (error instanceof DomainError) {
    const details = (error as { details?: Record<string, unknown> }).details;
    return { status: 400, body: { success: false, message: error.message, code: error.code, ...details } };
  }
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
  if (/^SQLITE_(FULL|IOERR)/.test(code) || /database or disk is full|disk I\/O error|no space left/i.test(message))
    return { code: "STORAGE_FULL", retryAfter: 30 };
  return undefined;
}

export interface TypeboxIssue {
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

/** The message of a validation answer: the one field at fault, or how many. */
export function describe(errors: FieldError[], where: string): string {
  if (errors.length === 0) return `Invalid ${where}`;
  if (errors.length === 1) return `Invalid input: ${errors[0].field} ${errors[0].message}`;
  return `Invalid input in ${errors.length} fields: ${errors.map((e) => e.field).join(", ")}`;
}
