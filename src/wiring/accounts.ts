import { Argon2idHasher } from "../../adapters/security/password";
import { CoreTokens } from "../../adapters/security/tokens";
import { isCommonPassword } from "../../adapters/security/common-passwords";
import { Authenticator } from "../../adapters/http/auth";
import type { Wiring } from "./context";

/** Companies and users: registration, login, the tokens and who a request is, and the security audit log. */
export function wireAccounts({ storage, config, clock }: Wiring) {
  const { companies, users, platformTokens, audit } = storage;
  const hasher = new Argon2idHasher(config.passwordHashCost);
  const coreTokens = new CoreTokens(config.jwtSecret, config.tokenTtlSeconds);
  const decoyHash = hasher.decoyHash();
  return {
    audit,
    companies,
    users,
    platformTokens,
    coreTokens,
    authenticator: new Authenticator(coreTokens, users, platformTokens, storage.revokedTokens),
    registration: { companies, hasher, clock, isCommonPassword, audit },
    login: { users, hasher, throttle: storage.loginThrottle, clock, decoyHash, audit },
  };
}
