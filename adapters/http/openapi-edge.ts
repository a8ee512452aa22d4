import { ErrorBody } from "./schemas";

/** The methods whose requests may carry a body (edge.ts reads and checks one on each). */
const BODY_METHODS = new Set(["post", "put", "patch", "delete"]);

const edgeAnswer = (description: string) => ({ description, content: { "application/json": { schema: ErrorBody } } });

/** What the edge answers before any route runs, by status; a body method's 400 also names the body's problems. */
const EDGE_ANSWERS = {
  400: edgeAnswer("NUL_CHARACTER: a %00 in the path or the query"),
  bodyOf400: edgeAnswer(
    "NUL_CHARACTER: a %00 in the path or the query, or a NUL in the body; MALFORMED_JSON, JSON_TOO_DEEP, JSON_TOO_WIDE or " +
      "RESERVED_KEY: a body that is not JSON we read",
  ),
  413: edgeAnswer("PAYLOAD_TOO_LARGE: the body is larger than MAX_BODY_BYTES (the fleet import: 16 MiB)"),
  415: edgeAnswer("UNSUPPORTED_MEDIA_TYPE: a body sent as anything but JSON"),
};

/**
 * Adds to every operation of the document the answers the HTTP edge (`edge.ts`) gives on any route before the route
 * runs, where the operation does not list them already: 400 for a NUL in the path or query (and on a body method a
 * body that is not JSON we read), 413 and 415 on the methods that carry a body. So every status a route can answer
 * is in its own `responses` (docs/security.md#conformance).
 */
export function withEdgeAnswers<T extends object>(document: T): T {
  const given = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  const paths = Object.fromEntries(
    Object.entries(given).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]) => {
          const op = operation as { responses?: Record<string, unknown> };
          if (!op || typeof op !== "object" || !op.responses) return [method, operation];
          const body = BODY_METHODS.has(method);
          const edge = body ? { 400: EDGE_ANSWERS.bodyOf400, 413: EDGE_ANSWERS[413], 415: EDGE_ANSWERS[415] } : { 400: EDGE_ANSWERS[400] };
          return [method, { ...op, responses: { ...edge, ...op.responses } }];
        }),
      ),
    ]),
  );
  return { ...document, paths };
}
