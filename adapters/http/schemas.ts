import { t, type TSchema } from "elysia";

/** The error envelope of both surfaces: `{success: false, message, code}`, plus `errors[]` on validation. */
export const ErrorBody = t.Object(
  {
    success: t.Literal(false),
    message: t.String({ description: "A human sentence saying what is wrong" }),
    code: t.String({ description: "A stable machine-readable code", examples: ["VALIDATION_FAILED"] }),
    errors: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }), { description: "Every failing field (validation errors only)" })),
    requestId: t.Optional(t.String({ description: "On 500 only: quote it when reporting the problem" })),
  },
  { additionalProperties: true },
);

/**
 * OpenAPI response objects for a route's `detail.responses`: the answers documented exactly as a `response`
 * option would document them, without Elysia checking and cleaning each answer at run time (for hot routes
 * whose answers are built from fixed domain types).
 */
export function documentedResponses(
  schemas: Record<number, TSchema>,
): Record<string, { description: string; content: { "application/json": { schema: TSchema } } }> {
  return Object.fromEntries(
    Object.entries(schemas).map(([status, schema]) => [
      status,
      { description: schema.description ?? `Response for status ${status}`, content: { "application/json": { schema } } },
    ]),
  );
}

/** Response schemas for the error statuses a route can answer. */
export function errors(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}

export const Credentials = t.Object({
  uid: t.String({ minLength: 1, maxLength: 254, description: "User id (the netid for a company's first user) or the user's e-mail", examples: ["ACME-LIMO"] }),
  pw: t.String({ minLength: 1, maxLength: 200, description: "Password", examples: ["<PASSWORD>"] }),
});

/** The booking named by either party: its netid and that party's reservation number. */
export const ResNoParams = t.Object({
  netid: t.String({ minLength: 1, maxLength: 64, description: "A party's netid (any letter case)", examples: ["ACME-LIMO"] }),
  resNo: t.String({ minLength: 1, maxLength: 100, description: "That party's own reservation number for the booking", examples: ["AC-55102"] }),
});

export const TransactionIdParams = t.Object({ transactionId: t.String({ maxLength: 64, description: "The booking's transactionId (UUID)" }) });

export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(
    t.String({
      description:
        "Optional, ≤ 255 characters: the first result is stored for 24 h (per company) and replayed for the same key; " +
        "the same key with a different body is 409 IDEMPOTENCY_KEY_REUSED; while the first request with the key still " +
        "runs, another is 409 IDEMPOTENCY_IN_PROGRESS (retry later).",
    }),
  ),
});
