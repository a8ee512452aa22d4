import type { documentedResponses } from "./schemas";

/** Where the platform operations live. */
export const PLATFORM_PREFIX = "/Platform.svc";

/** The version suffixes a platform operation answers under: none, `/V1` and `/v1`. */
export const PLATFORM_VERSIONS = ["", "/V1", "/v1"] as const;

export type PlatformVersion = (typeof PLATFORM_VERSIONS)[number];

/** Spread into a route's `detail`: hides the route from the OpenAPI document, or adds nothing. */
export type PlatformDoc = { hide?: true };

/**
 * Registers one platform operation under each path the platform answers it on: `/Platform.svc<path>`, then the
 * same with `/V1` and with `/v1` appended.
 * `register(path, doc)` adds the route for one of those paths (call the app's `.get`/`.post` there and spread
 * `doc` into `detail`); it runs once per path, and only the `documented` spelling (default `/V1`) shows in the
 * OpenAPI document. Returns what `register` returned, typed as the route under the bare path, so the app's
 * type (and a typed client) knows the operation. Use it through `.use`, on an app without a prefix (the helper
 * adds /Platform.svc; a prefixed app would name the prefix twice in the app's type):
 *
 *     new Elysia({ name: "platform-x" })
 *       .use(authMacros(auth))
 *       .use((app) =>
 *         platformRoute("/sendTrip", (path, doc) => app.post(path, handler, { ...hook, detail: { ...detail, security: PLATFORM_SECURITY, ...doc } })),
 *       )
 *
 * An operation behind the `token` header says so with `security: PLATFORM_SECURITY` in its detail (the document's
 * default is no credential). Elysia's route methods add to the app they are called on, so every path lands on the
 * same app.
 */
export function platformRoute<const Path extends string, App>(
  path: Path,
  register: (path: `${typeof PLATFORM_PREFIX}${Path}`, doc: PlatformDoc) => App,
  documented: PlatformVersion = "/V1",
): App {
  let app: App | undefined;
  for (const version of PLATFORM_VERSIONS) {
    // The suffixed spellings are the same route to the type system: the typed path is the bare one.
    const registered = register(`${PLATFORM_PREFIX}${path}${version}` as `${typeof PLATFORM_PREFIX}${Path}`, version === documented ? {} : { hide: true });
    if (version === "") app = registered;
  }
  return app!;
}

/** The `security` of an operation authenticated by the platform header `token`. */
export const PLATFORM_SECURITY = [{ platformToken: [] }];

/** An operation's OpenAPI detail: its documented answers and its prose (tags, summary, description). */
export interface OperationDetail {
  responses?: ReturnType<typeof documentedResponses>;
  tags: string[];
  summary: string;
  description: string;
}

/**
 * The hook of a platform operation behind the `token` header: `platformAuth`, the route's own `hook` (params,
 * body, headers…), and `detail` documented once (`doc` from platformRoute hides the other spellings).
 */
export function tokenOperation<const Hook extends object>(doc: PlatformDoc, hook: Hook, detail: OperationDetail) {
  return { platformAuth: true as const, ...hook, detail: { ...detail, security: PLATFORM_SECURITY, ...doc } };
}
