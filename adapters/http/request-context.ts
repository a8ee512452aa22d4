/** The company behind each authenticated request, for the request log line. */
export const companyOfRequest = new WeakMap<Request, string>();

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Requests answered by handling a rewritten copy of them (see platform-paths.ts): the copy's pass logs them. */
export const forwardedRequests = new WeakSet<Request>();

/** The request id of a request: a valid incoming X-Request-Id, else a new UUID. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** The path of an absolute request URL (as URL's pathname, without parsing a URL object on every request). */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}
