import { createHash } from "node:crypto";
import { DomainError, ValidationError } from "../../domain/errors";
import { ConflictError } from "../../domain/errors";
import { canonicalJson } from "../../domain/trips/decisions";
import type { Clock } from "../../domain/ports";
import type { IdempotencyStore } from "../../domain/trips/ports";
import { toErrorResponse } from "./errors";
import { requestIdOf } from "./request-context";

export const MAX_IDEMPOTENCY_KEY = 255;

export interface IdempotentCall {
  /** The caller's company: keys are scoped per company. */
  netid: string;
  request: Request;
  /** Names the operation and its target, e.g. "sendTrip" or "cancelTrip:<id>", so a key reused elsewhere is a conflict. */
  operation: string;
  body: unknown;
  /** The route's response status and headers: the answer's are set there (see `idempotent`). */
  set: { status?: number | string; headers: Record<string, string | number> };
}

/**
 * Runs an operation under the request's `Idempotency-Key`: without a key it just runs; with one,
 * the key is reserved before the operation runs (a second request with it meanwhile is 409
 * IDEMPOTENCY_IN_PROGRESS), then the first result — success or refusal — is stored for 24 h and replayed for the
 * same key and body (header `Idempotent-Replayed: true`); the same key with another body is 409. Results of 5xx
 * are not stored.
 *
 * Resolves with the answer's JSON text, its status and content type set on `call.set`: a string is what Elysia
 * sends as it is, where a Response of our own would be copied into a new one (a stream of its body) to take
 * the route's headers (request id, rate limits).
 */
export async function idempotent(store: IdempotencyStore, clock: Clock, call: IdempotentCall, run: () => Promise<unknown>): Promise<string> {
  const key = call.request.headers.get("idempotency-key");
  if (key === null) return answer(call.set, 200, JSON.stringify(await run()));
  if (key.trim() === "" || key.length > MAX_IDEMPOTENCY_KEY)
    throw new ValidationError([{ field: "Idempotency-Key", message: `must be 1–${MAX_IDEMPOTENCY_KEY} characters` }]);

  const requestHash = createHash("sha256").update(`${call.operation}\n${canonicalJson(call.body ?? null)}`).digest("base64url");
  // Reserved before the change runs: a second request with the key while this one runs is refused, not run.
  const reservation = await store.reserve(call.netid, key, requestHash, clock.now());
  if (reservation.kind === "in-progress") {
    if (reservation.requestHash !== requestHash) throw reused();
    throw new ConflictError("A request with this Idempotency-Key is still being processed; retry after it has finished", "IDEMPOTENCY_IN_PROGRESS");
  }
  if (reservation.kind === "stored") {
    if (reservation.result.requestHash !== requestHash) throw reused();
    call.set.headers["idempotent-replayed"] = "true";
    return answer(call.set, reservation.result.status, reservation.result.body);
  }
  let result: { status: number; body: string } | undefined;
  try {
    const body = JSON.stringify(await run());
    result = { status: 200, body };
    return answer(call.set, 200, body);
  } catch (error) {
    if (error instanceof DomainError) {
      const mapped = toErrorResponse(error, requestIdOf(call.request));
      if (mapped.status < 500) result = { status: mapped.status, body: JSON.stringify(mapped.body) };
    }
    throw error;
  } finally {
    // Results of 5xx are not kept: the key is free again for a retry.
    if (result) await store.complete(call.netid, key, { requestHash, ...result }, clock.now());
    else await store.release(call.netid, key);
  }
}

const reused = () => new ConflictError("This Idempotency-Key was already used with a different request", "IDEMPOTENCY_KEY_REUSED");

function answer(set: IdempotentCall["set"], status: number, body: string): string {
  set.status = status;
  set.headers["content-type"] = "application/json";
  return body;
}
