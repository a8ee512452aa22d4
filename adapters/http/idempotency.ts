import { createHash } from "node:crypto";
import { DomainError, ValidationError } from "../../domain/errors";
import { ConflictError } from "../../domain/errors";
import { canonicalJson } from "../../domain/trips/decisions";
import type { Clock } from "../../domain/ports";
import type { SqliteIdempotencyStore } from "../sqlite/trip-repositories";
import { requestIdOf, toErrorResponse } from "./errors";

export const MAX_IDEMPOTENCY_KEY = 255;

export interface IdempotentCall {
  /** The caller's company: keys are scoped per company. */
  netid: string;
  request: Request;
  /** Names the operation and its target, e.g. "sendTrip" or "cancelTrip:<id>", so a key reused elsewhere is a conflict. */
  operation: string;
  body: unknown;
}

/**
 * Runs an operation under the request's `Idempotency-Key` (CONTRACT §6): without a key it just runs; with one,
 * the first result — success or refusal — is stored for 24 h and replayed for the same key and body
 * (header `Idempotent-Replayed: true`); the same key with another body is 409. Results of 5xx are not stored.
 */
export async function idempotent(store: SqliteIdempotencyStore, clock: Clock, call: IdempotentCall, run: () => Promise<unknown>): Promise<Response> {
  const key = call.request.headers.get("idempotency-key");
  if (key === null) return json(200, await run());
  if (key.trim() === "" || key.length > MAX_IDEMPOTENCY_KEY)
    throw new ValidationError([{ field: "Idempotency-Key", message: `must be 1–${MAX_IDEMPOTENCY_KEY} characters` }]);

  const requestHash = createHash("sha256").update(`${call.operation}\n${canonicalJson(call.body ?? null)}`).digest("base64url");
  const stored = store.lookup(call.netid, key, clock.now());
  if (stored) {
    if (stored.requestHash !== requestHash)
      throw new ConflictError("This Idempotency-Key was already used with a different request", "IDEMPOTENCY_KEY_REUSED");
    return new Response(stored.body, { status: stored.status, headers: { "content-type": "application/json", "idempotent-replayed": "true" } });
  }
  try {
    const result = await run();
    store.save(call.netid, key, { requestHash, status: 200, body: JSON.stringify(result) }, clock.now());
    return json(200, result);
  } catch (error) {
    if (error instanceof DomainError) {
      const mapped = toErrorResponse(error, requestIdOf(call.request));
      if (mapped.status < 500) store.save(call.netid, key, { requestHash, status: mapped.status, body: JSON.stringify(mapped.body) }, clock.now());
    }
    throw error;
  }
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}
