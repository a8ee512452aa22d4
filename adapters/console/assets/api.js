// The console's client of the public API. Tokens live in this module's memory only: never in localStorage or
// cookies, so closing or reloading the tab signs out.

const session = { jwt: null, platform: null, netid: null, uid: null, exp: 0, company: null };

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
    this.errors = body?.errors;
    this.body = body;
  }
}

export const me = () => ({ netid: session.netid, uid: session.uid });
export const signedIn = () => session.jwt !== null;
export const canMoveTrips = () => session.platform !== null;
/** The core JWT, for EventSource (which cannot set headers): GET /api/events?access_token=. */
export const accessToken = () => session.jwt;
/** The signed-in company ({netid, name, coType, plan, sandbox}), or null when it could not be read. */
export const company = () => session.company;

async function call(method, path, body, headers) {
  const res = await fetch(path, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {}
  if (!res.ok) {
    if (res.status === 401 && session.jwt) onExpired();
    throw new ApiError(res.status, typeof parsed === "object" ? parsed : { message: text });
  }
  return parsed;
}

let onExpired = () => {};
/** Called (with a message, or none) when a token stops working (expired, user removed): the app shows the sign-in form again. */
export function whenExpired(fn) {
  onExpired = fn;
}

/**
 * The server ended the session (the event stream's `revoked`: the token was released elsewhere, expired, or its user
 * removed): both tokens are forgotten (the platform one released too) and the app asks to sign in again.
 */
export function sessionEnded(message) {
  const { platform: token } = session;
  Object.assign(session, { jwt: null, platform: null, netid: null, uid: null, exp: 0, company: null });
  if (token) call("POST", "/Platform.svc/releaseToken/V1", undefined, { token }).catch(() => {});
  onExpired(message);
}

/** Signs in with uid (or e-mail) and password: a core token for /api, a platform token for /Platform.svc. */
export async function signIn(uid, pw) {
  const core = await call("POST", "/api/token", { uid, pw });
  // With PLATFORM_PORT set the platform surface lives on another port: the console then reads, but cannot move trips.
  const platform = await call("POST", "/Platform.svc/getToken2", { uid, pw }).catch((e) => (e.status === 404 ? null : Promise.reject(e)));
  const claims = JSON.parse(atob(core.token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  Object.assign(session, { jwt: core.token, platform, netid: claims.netid, uid: claims.sub, exp: core.exp });
  session.company = (await call("GET", "/api/company", undefined, { authorization: `Bearer ${core.token}` }).catch(() => null))?.data ?? null;
}

/** Ends both tokens on the server (the core JWT and the platform token) and forgets them. */
export async function signOut() {
  const { jwt, platform: token } = session;
  Object.assign(session, { jwt: null, platform: null, netid: null, uid: null, exp: 0, company: null });
  await Promise.all([
    jwt ? call("POST", "/api/token/release", undefined, { authorization: `Bearer ${jwt}` }).catch(() => {}) : undefined,
    token ? call("POST", "/Platform.svc/releaseToken/V1", undefined, { token }).catch(() => {}) : undefined,
  ]);
}

/** A core API call with the bearer token. */
export function core(method, path, body) {
  return call(method, path, body, { authorization: `Bearer ${session.jwt}` });
}

/** A platform API call with the platform token. */
export function platform(method, path, body) {
  return call(method, path, body, { token: session.platform });
}

/** A public call (no credential). */
export function open(method, path) {
  return call(method, path);
}

/** POSTs JSON with upload progress (0..1) reported to `onProgress`; resolves with the parsed answer. */
export function postWithProgress(path, body, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("content-type", "application/json");
    xhr.setRequestHeader("authorization", `Bearer ${session.jwt}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let parsed = null;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed);
      else reject(new ApiError(xhr.status, parsed ?? { message: xhr.responseText }));
    };
    xhr.onerror = () => reject(new ApiError(0, { message: "The network request failed" }));
    xhr.send(JSON.stringify(body));
  });
}
