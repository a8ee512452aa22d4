import { t, type Context } from "elysia";
import type { Caller, Clock } from "../../../domain/ports";
import type { IdempotencyStore } from "../../../domain/trips/ports";
import { idempotent } from "../idempotency";
import { tokenOperation, type OperationDetail, type PlatformDoc } from "../platform-route";
import { documentedResponses, errors, IdempotencyHeaders } from "../schemas";

/** The answer of a platform change, as GNet's platform gives it: the JSON string "OK". */
export const OK = t.String({ examples: ["OK"], description: 'The JSON string "OK"' });

interface ChangeContext<Params, Body> {
  caller: Caller;
  params: Params;
  body: Body;
  request: Request;
  set: Context["set"];
}

/** Names a change and its target for the Idempotency-Key (a key reused on another is a conflict). */
type OperationName<Params> = (params: Params) => string;

/**
 * The idempotent platform changes that answer "OK" (provider updates, cancellations): each runs under the request's
 * `Idempotency-Key` and is documented with `OK` and the error statuses it can answer.
 */
export function answeringOk(store: IdempotencyStore, clock: Clock) {
  const answer = <Params, Body>(context: ChangeContext<Params, Body>, operation: string, body: unknown, change: () => Promise<unknown>) =>
    idempotent(store, clock, { netid: context.caller.netid, request: context.request, operation, body, set: context.set }, async () => {
      await change();
      return "OK";
    });
  // The handlers name the members they read: Elysia reads a handler's source to decide what each request parses, and
  // a context handed on whole makes it parse everything (cookies, query) on every request (docs/performance.md).
  return {
    /** A change that takes no body: the key is bound to the operation alone. */
    handler:
      <Params>(name: OperationName<Params>, change: (caller: Caller, params: Params) => Promise<unknown>) =>
      ({ caller, params, body, request, set }: ChangeContext<Params, unknown>) =>
        answer({ caller, params, body, request, set }, name(params), null, () => change(caller, params)),
    /** A change with a body: the key is bound to the operation and the body. */
    handlerWithBody:
      <Params, Body>(name: OperationName<Params>, change: (caller: Caller, params: Params, body: Body) => Promise<unknown>) =>
      ({ caller, params, body, request, set }: ChangeContext<Params, Body>) =>
        answer({ caller, params, body, request, set }, name(params), body, () => change(caller, params, body)),
    /** The route's hook: the token, its `schemas` (params, body…), the Idempotency-Key header and its documentation. */
    hook: <const Schemas extends object>(doc: PlatformDoc, schemas: Schemas, statuses: number[], prose: OperationDetail) =>
      tokenOperation(doc, { ...schemas, headers: IdempotencyHeaders }, { responses: documentedResponses({ 200: OK, ...errors(...statuses) }), ...prose }),
  };
}
