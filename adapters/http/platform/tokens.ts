import { Elysia, t } from "elysia";
import { login, type LoginDeps } from "../../../domain/usecases/login";
import { UnauthorizedError } from "../../../domain/errors";
import type { PlatformTokenRepository } from "../../../domain/ports";
import { hashPlatformToken, newPlatformToken } from "../../../domain/platform-token";
import { jsonString, wrongKind } from "../auth";
import { platformRoute } from "../platform-route";
import { Credentials, documentedResponses, errors } from "../schemas";
import { OK } from "./answer-ok";
import type { AddressOf } from "../core/accounts";

export interface PlatformTokenDeps {
  login: LoginDeps;
  platformTokens: PlatformTokenRepository;
  /** Whether a value is a valid core token (JWT): given in the platform token's place, it is the wrong kind. */
  isCoreToken: (token: string) => Promise<boolean>;
}

/** Platform tokens: getToken2 issues an opaque token, releaseToken ends it. */
export function platformTokens(deps: PlatformTokenDeps, addressOf: AddressOf) {
  const release = async ({ request }: { request: Request }) => {
    const token = request.headers.get("token")?.trim();
    if (!token) {
      if (/^(Bearer\s+)?[\w-]+\.[\w-]+\.[\w-]*$/i.test(request.headers.get("authorization")?.trim() ?? "")) throw wrongKind("platform");
      throw new UnauthorizedError("Missing platform token: send the header token", "MISSING_TOKEN");
    }
    if (await deps.isCoreToken(token)) throw wrongKind("platform");
    const hash = hashPlatformToken(token);
    const uid = await deps.platformTokens.findActiveUid(hash);
    const released = await deps.platformTokens.release(hash, deps.login.clock.now());
    if (!released) throw new UnauthorizedError("Invalid, expired or released token", "INVALID_TOKEN");
    deps.login.audit.record({ type: "token.released", uid }, deps.login.clock.now());
    return jsonString("OK");
  };
  const releaseDoc = {
    headers: t.Object({ token: t.Optional(t.String({ description: "The platform token to release" })) }),
    detail: {
      responses: documentedResponses({ 200: OK, ...errors(401) }),
      tags: ["Platform"],
      summary: "Release a platform token",
      security: [{ platformToken: [] }],
      description: 'The token gets 401 everywhere afterwards. Answers the JSON string "OK".',
    },
  };

  return new Elysia({ name: "platform-tokens" })
    .use((app) =>
      platformRoute(
        "/getToken2",
        (path, doc) =>
          app.post(
            path,
            async ({ body, request }) => {
              const user = await login(deps.login, { login: body.uid, password: body.pw, clientAddress: addressOf(request) });
              const token = newPlatformToken();
              await deps.platformTokens.save(hashPlatformToken(token), user.uid, deps.login.clock.now());
              return jsonString(token);
            },
            {
              body: Credentials,
              detail: {
                responses: documentedResponses({
                  200: t.String({ description: "The token (a JSON string). Send it as header `token`; active until released." }),
                  ...errors(400, 401, 429),
                }),
                tags: ["Platform"],
                summary: "Get a platform token",
                security: [],
                ...doc,
              },
            },
          ),
        "",
      ),
    )
    .use((app) =>
      platformRoute("/releaseToken", (path, doc) =>
        app
          .get(path, release, { ...releaseDoc, detail: { ...releaseDoc.detail, ...doc } })
          .post(path, release, { ...releaseDoc, detail: { ...releaseDoc.detail, ...doc } }),
      ),
    );
}
