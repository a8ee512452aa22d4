/** One failing input field, as reported to the client. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * Base of every error the domain raises on purpose. `code` is stable and part of the API;
 * the HTTP adapter maps each subclass to a status in exactly one place.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
}

/** Input that breaks a rule; lists every failing field at once. */
export class ValidationError extends DomainError {
  readonly code: string;
  /** `code` names the rule when one rule failed (PICKUP_IN_PAST…); VALIDATION_FAILED otherwise. */
  constructor(readonly errors: FieldError[], message?: string, code = "VALIDATION_FAILED") {
    super(message ?? describeFieldErrors(errors));
    this.code = code;
  }
}

/** Authentication missing, wrong or expired. */
export class UnauthorizedError extends DomainError {
  readonly code: string;
  constructor(message = "Authentication required", code = "UNAUTHORIZED") {
    super(message);
    this.code = code;
  }
}

/** Authenticated, but this caller may not do this. */
export class ForbiddenError extends DomainError {
  readonly code: string;
  /** Extra members of the error body, e.g. `errors` naming the field at fault. */
  constructor(message: string, code = "FORBIDDEN", readonly details?: { errors?: FieldError[] }) {
    super(message);
    this.code = code;
  }
}

/** Unknown, or not visible to the caller (the two are indistinguishable on purpose). */
export class NotFoundError extends DomainError {
  readonly code: string;
  constructor(message: string, code = "NOT_FOUND") {
    super(message);
    this.code = code;
  }
}

/** Duplicate, invalid state transition, expired quote. */
export class ConflictError extends DomainError {
  readonly code: string;
  constructor(message: string, code = "CONFLICT", readonly details?: Record<string, unknown>) {
    super(message);
    this.code = code;
  }
}

/** What a change would make is larger than a limit allows (413): `details` names the limit. */
export class TooLargeError extends DomainError {
  readonly code: string;
  constructor(message: string, code: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.code = code;
  }
}

/** Too many attempts; the caller may retry after `retryAfterSeconds`. `details`: extra members of the error body. */
export class TooManyRequestsError extends DomainError {
  readonly code: string;
  constructor(
    readonly retryAfterSeconds: number,
    message = "Too many requests",
    code = "TOO_MANY_REQUESTS",
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.code = code;
  }
}

/** Joins field errors into one human sentence. */
export function describeFieldErrors(errors: FieldError[]): string {
  if (errors.length === 0) return "Invalid input";
  if (errors.length === 1) return `Invalid input: ${errors[0].field}: ${errors[0].message}`;
  return `Invalid input in ${errors.length} fields: ${errors.map((e) => e.field).join(", ")}`;
}
