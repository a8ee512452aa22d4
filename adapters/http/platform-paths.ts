import { Elysia } from "elysia";
import { forwardedRequests } from "./request-context";

const PREFIX = "/Platform.svc";

/** Where the path of an absolute request URL starts. */
function pathStart(url: string): number {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  return start < 0 ? url.length : start;
}

/**
 * The registered spelling of a platform path that may differ from it in letter case (`/platform.svc/sendtrip/v1`
 * → `/Platform.svc/sendTrip/v1`): the service segment and the operation name are folded; the rest (netids,
 * reservation numbers, the version segment, registered as V1 and v1) is left as sent. Undefined when the path
 * is not a platform path. `operations` maps lower-case operation names to their registered spelling.
 */
export function canonicalPlatformPath(path: string, operations: ReadonlyMap<string, string>): string | undefined {
  const segments = path.split("/");
  if (segments.length < 2 || segments[1].toLowerCase() !== "platform.svc") return undefined;
  segments[1] = PREFIX.slice(1);
  if (segments.length > 2) segments[2] = operations.get(segments[2].toLowerCase()) ?? segments[2];
  return segments.join("/");
}

/** The operation names registered under /Platform.svc, by their lower-case spelling. */
export function platformOperations(paths: Iterable<string>): Map<string, string> {
  const operations = new Map<string, string>();
  for (const path of paths) {
    if (!path.startsWith(`${PREFIX}/`)) continue;
    const name = path.split("/")[2];
    if (name && !name.startsWith(":")) operations.set(name.toLowerCase(), name);
  }
  return operations;
}

/** The app whose routes the folding looks up and that handles the re-spelled request. */
export interface PlatformRoot {
  handle(request: Request): Promise<Response>;
  routes: ReadonlyArray<{ path: string }>;
}

/**
 * GNet's WCF host matches `/Platform.svc` and its operation names in any letter case; Elysia's
 * router matches exactly, and reads the path before any hook runs. So a request whose platform path differs from
 * a registered one only in case is handled again by `root` under the registered spelling (same method, headers,
 * body and request id); its own access line is left to that second pass.
 */
export function platformPathFolding(root: () => PlatformRoot) {
  let operations: Map<string, string> | undefined;
  return new Elysia().onRequest(({ request, set }) => {
    const url = request.url;
    const start = pathStart(url);
    // Cheap exit for everything that is not /?latform.svc… (the hot /api routes never get further).
    if ((url.charCodeAt(start + 1) | 32) !== 0x70 || url.startsWith(`${PREFIX}/`, start) && !mayDiffer(url, start)) return;
    const query = url.indexOf("?", start);
    const end = query < 0 ? url.length : query;
    const path = url.slice(start, end);
    operations ??= platformOperations(root().routes.map((r) => r.path));
    const canonical = canonicalPlatformPath(path, operations);
    if (canonical === undefined || canonical === path) return;
    forwardedRequests.add(request);
    const headers = new Headers(request.headers);
    headers.set("x-request-id", String(set.headers["x-request-id"]));
    const init: RequestInit & { duplex?: "half" } = { method: request.method, headers, body: request.body, duplex: "half", signal: request.signal };
    return root().handle(new Request(url.slice(0, start) + canonical + url.slice(end), init));
  });

  /** A path under the exact prefix can still differ in the operation's case; only then is it looked at. */
  function mayDiffer(url: string, start: number): boolean {
    const from = start + PREFIX.length + 1;
    let to = url.indexOf("/", from);
    const query = url.indexOf("?", from);
    if (to < 0 || (query >= 0 && query < to)) to = query < 0 ? url.length : query;
    const name = url.slice(from, to);
    operations ??= platformOperations(root().routes.map((r) => r.path));
    return operations.get(name.toLowerCase()) !== name;
  }
}
