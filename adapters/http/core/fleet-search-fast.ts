import { parseQueryFromURL } from "elysia/parse-query";
import type { RawFleetSearchQuery } from "../../../domain/fleet/search";
import type { SearchAnswerCache } from "../../../domain/fleet/answer-cache";
import type { SearchFleetDeps } from "../../../domain/usecases/search-fleet";
import type { Logger } from "../../logging";
import { AccessLog } from "../access-log";
import type { Authenticator } from "../auth";
import { toErrorResponse } from "../errors";
import { requestIdOf } from "../request-context";
import type { RateLimiter } from "../rate-limit";
import { FleetSearchAnswering, type PlannedSearch } from "./fleet-search";

const ROUTE = "/api/search/fleet";
const PARAMS = ["airports", "lat", "lon", "city", "state", "country", "types", "q", "radius_km", "limit", "offset"] as const;
/** As FleetSearchQuerySchema bounds each parameter. */
const MAX_PARAM = 2000;

/** What the edge does around every route, for a handler served outside Elysia's hooks. */
export interface FastRouteEdge {
  logger: Logger;
  /** Metrics: one answered request, its route template and duration. */
  onResponse?: (method: string, route: string, status: number, seconds: number) => void;
  /** The whole app: answers every request the fast path leaves to it, exactly as it answers any route. */
  fallback: (request: Request) => Response | Promise<Response>;
}

/**
 * GET /api/search/fleet for Bun's own router, outside Elysia's global hooks: the common request — a plain
 * `Bearer <JWT>` that authenticates and a query that checks out — is answered here with every duty of the edge
 * and the route (request id, security headers, the search budget and its headers, metrics, the access line);
 * everything else (no or bad credential, a query to refuse, %00, repeated parameters) is handed to the full app
 * before anything is spent, so its answer is the one the app gives on any route. The Elysia route stays for
 * the docs and for requests that do not come through Bun's router (app.handle).
 */
export function fastFleetSearch(
  deps: SearchFleetDeps,
  auth: Authenticator,
  limiter: RateLimiter,
  answers: SearchAnswerCache<Uint8Array> | undefined,
  edge: FastRouteEdge,
) {
  const answering = new FleetSearchAnswering(deps, answers);
  const accessLog = new AccessLog(edge.logger);

  const finish = (requestId: string, company: string, status: number, started: number, response: Response) => {
    const ms = performance.now() - started;
    edge.onResponse?.("GET", ROUTE, status, ms / 1000);
    accessLog.record({ requestId, method: "GET", route: ROUTE, path: ROUTE, company, status, ms: Math.round(ms * 100) / 100 });
    return response;
  };

  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const url = request.url;
    if (url.includes("%00")) return edge.fallback(request);
    const caller = await auth.knownCoreCaller(request.headers.get("authorization"));
    if (!caller) return edge.fallback(request);
    let planned: PlannedSearch;
    try {
      planned = answering.plan(caller, url, () => rawQueryOf(url) ?? unusual());
    } catch {
      return edge.fallback(request);
    }
    const requestId = requestIdOf(request);
    const headers: Record<string, string> = {
      "x-request-id": requestId,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "content-type": "application/json",
    };
    let status = 200;
    let body: Uint8Array<ArrayBuffer> | string;
    try {
      const checked = limiter.check("searchPerMinute", caller.netid, headers);
      if (checked) await checked;
      body = answering.answer(planned) as Uint8Array<ArrayBuffer>;
    } catch (error) {
      const mapped = toErrorResponse(error, requestId);
      if (mapped.status === 503) edge.logger.warn({ requestId, method: "GET", path: ROUTE, code: mapped.body.code, err: error }, "storage unavailable");
      else if (mapped.status >= 500) edge.logger.error({ requestId, method: "GET", path: ROUTE, err: error }, "unhandled error");
      Object.assign(headers, mapped.headers);
      status = mapped.status;
      body = JSON.stringify(mapped.body);
    }
    return finish(requestId, caller.netid, status, started, new Response(body, { status, headers }));
  };
}

/** Thrown for a query the fast path leaves to the full app. */
class UnusualQuery extends Error {}

function unusual(): never {
  throw new UnusualQuery();
}

/** The search parameters as Elysia reads them; undefined when one is repeated or too long (the app refuses those). */
function rawQueryOf(url: string): RawFleetSearchQuery | undefined {
  const at = url.indexOf("?");
  if (at < 0) return {};
  const parsed = parseQueryFromURL(url, at + 1) as Record<string, unknown>;
  const raw: Record<string, string> = {};
  for (const name of PARAMS) {
    const value = parsed[name];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.length > MAX_PARAM) return undefined;
    raw[name] = value;
  }
  return raw;
}
