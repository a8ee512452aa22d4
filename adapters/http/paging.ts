import { t, type TSchema } from "elysia";
import { ValidationError, type FieldError } from "../../domain/errors";

/**
 * The paging query parameters of every listing: `limit` (1–100, default 20) and `offset` (≥ 0, default 0), as
 * query strings. Their values are checked where the listing is made (parsePaging, or the use case's own
 * rules), which answer 400 naming the parameter. Spread into a route's query: `t.Object({ ...Paging.properties, … })`.
 */
export const Paging = t.Object({
  limit: t.Optional(t.String({ maxLength: 20, description: "Page size, a whole number 1–100 (default 20); out of range is 400", examples: ["20"] })),
  offset: t.Optional(t.String({ maxLength: 20, description: "Items to skip, a whole number ≥ 0 (default 0)", examples: ["0"] })),
});

/** One page of a listing as answered: the items, how many there are in all, and the limit and offset applied. */
export function Page<T extends TSchema>(items: T) {
  return t.Object({
    items: t.Array(items),
    total: t.Integer({ description: "All matches, not just this page" }),
    limit: t.Integer({ description: "The page size applied" }),
    offset: t.Integer({ description: "The offset applied" }),
  });
}

/** Parses limit and offset; 400 naming the parameter when out of bounds. */
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
