import { t } from "elysia";
import { ValidationError, type FieldError } from "../../domain/errors";

/** `limit` (1–100, default 20) and `offset` (≥ 0, default 0) as query strings, checked by parsePaging. */
export const Paging = t.Object({
  limit: t.Optional(t.String({ maxLength: 20, description: "Page size, 1–100", default: "20" })),
  offset: t.Optional(t.String({ maxLength: 20, description: "Items to skip, ≥ 0", default: "0" })),
});

/** Parses limit and offset; 400 naming the parameter when out of bounds (CONTRACT §10.13). */
export function parsePaging(query: { limit?: string; offset?: string }, maxLimit = 100): { limit: number; offset: number } {
  const errors: FieldError[] = [];
  const limit = query.limit === undefined ? 20 : wholeNumber(query.limit);
  const offset = query.offset === undefined ? 0 : wholeNumber(query.offset);
  if (limit === undefined || limit < 1 || limit > maxLimit) errors.push({ field: "limit", message: `must be a whole number from 1 to ${maxLimit}` });
  if (offset === undefined || offset < 0 || offset > 1_000_000_000) errors.push({ field: "offset", message: "must be a whole number ≥ 0" });
  if (errors.length) throw new ValidationError(errors);
  return { limit: limit!, offset: offset! };
}

function wholeNumber(value: string): number | undefined {
  return /^\s*-?\d{1,12}\s*$/.test(value) ? Number(value) : undefined;
}
