import { Elysia, t } from "elysia";
import { registerCompany, registrationProblems, type RegisterCompanyDeps } from "../../../domain/usecases/register-company";
import { login, type LoginDeps } from "../../../domain/usecases/login";
import { checkAccounts, type CheckAccountsDeps } from "../../../domain/usecases/check-accounts";
import type { RateLimiter } from "../rate-limit";
import type { TokenIssuer as CoreTokens } from "../../../domain/ports";
import { Credentials, errors } from "../schemas";
import { alongTypeErrors } from "../body-checks";
import type { Authenticator } from "../auth";

const optionalString = (max: number, description: string, example?: string) =>
  t.Optional(t.String({ maxLength: max, description, ...(example ? { examples: [example] } : {}) }));

export const RegistrationBody = t.Object(
  {
    name: optionalString(
      1000,
      "Company name, 1–250 characters after trimming, without text-direction controls (U+202A–202E, U+2066–2069, " +
        "LRM/RLM), invisible characters (zero-width space, BOM, …; ZWJ/ZWNJ only inside a word), line breaks and " +
        "control characters (U+2028, U+2029, newlines), blank-looking characters (U+2800, Hangul fillers U+115F, " +
        "U+1160, U+3164, U+FFA0), with at least one letter, digit or symbol. Required.",
      "Acme Limousine",
    ),
    netid: optionalString(
      100,
      "Optional company id: 3–32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit, unique " +
        "case-insensitively; reserved ids (TRIPSWITCH, ADMIN, SYSTEM, SUPPORT, … in any letter case) are refused. " +
        "Generated from the name when absent.",
      "ACME-LIMO",
    ),
    mainEmail: optionalString(
      1000,
      "Main e-mail; trimmed, Unicode-composed (NFC), lower-cased, its domain spelled in Unicode (punycode decoded) " +
        "— compared and stored in that form. Required, unique. A domain that mixes scripts in one label (Latin with " +
        "Cyrillic…) or is spelled in Cyrillic/Greek letters that look Latin under a Latin top-level domain is " +
        "refused (400): it could pass for another domain.",
      "dispatch@acme-limo.example",
    ),
    password: optionalString(1000, "8–100 characters, not the e-mail or netid, not a common password. Required.", "<PASSWORD>"),
    confirmPassword: optionalString(1000, "Must equal password. Required.", "<PASSWORD>"),
    mainPhone: optionalString(100, "Main phone; normalised to E.164. A national number needs countryCode. Required, unique.", "+12125550123"),
    countryCode: optionalString(10, "ISO 3166 alpha-2 country of a national mainPhone", "US"),
    notes: optionalString(5000, "Free text, at most 2000 characters"),
    address: optionalString(2000, "Postal address, at most 500 characters"),
    mode: optionalString(10, "`dry` validates only and saves nothing; `live` (default) registers", "live"),
    coType: optionalString(10, "IO (operator that runs vehicles) or CO (company that books rides), case-insensitive. Required.", "IO"),
  },
  { description: "Company registration. Required: name, mainEmail, password, confirmPassword, mainPhone, coType." },
);

const RegistrationData = t.Object({
  netid: t.String(),
  name: t.String(),
  coType: t.String({ examples: ["IO"] }),
  plan: t.String({ examples: ["FREE"] }),
  uid: t.String({ description: "The first user's uid (the netid); log in with it or the e-mail" }),
});

const AccountCheck = t.Object({
  query: t.Union([t.Literal("username"), t.Literal("email"), t.Literal("phone")], { description: "Which key this answer is for" }),
  found: t.Boolean({ description: "Whether a company or user holds it" }),
  result: t.String({
    description:
      "The value as compared: the username lower-cased, the e-mail trimmed and lower-cased, the phone in E.164. " + "Nothing about the account found.",
    examples: ["+12125550101"],
  }),
});

export interface AccountsDeps {
  registration: RegisterCompanyDeps;
  login: LoginDeps;
  coreTokens: CoreTokens;
  /** Ends core tokens (sign-out). */
  authenticator: Pick<Authenticator, "releaseCore">;
  /** The account check and its per-address throttle. */
  accountChecks: CheckAccountsDeps & { limiter: RateLimiter };
}

/** Resolves the client address; app.handle() in tests has no server. */
export type AddressOf = (request: Request) => string;

/** Core accounts: company registration (throttled per client address), the core token, and the unauthenticated account check. */
export function coreAccounts(deps: AccountsDeps, addressOf: AddressOf, limiter?: RateLimiter) {
  return new Elysia({ name: "core-accounts", prefix: "/api" })
    .post(
      "/company/register",
      async ({ body, request, set }) => {
        await limiter?.check("registrationsPerHour", addressOf(request), set.headers as Record<string, string | number>);
        const result = await registerCompany(deps.registration, body);
        const data = { ...result.company, uid: result.uid };
        return result.dryRun ? { success: true as const, dryRun: true as const, data } : { success: true as const, data };
      },
      {
        body: RegistrationBody,
        transform: alongTypeErrors((body) => registrationProblems(deps.registration, body as never)),
        response: {
          200: t.Object({ success: t.Literal(true), dryRun: t.Optional(t.Literal(true)), data: RegistrationData }),
          ...errors(400, 409, 413, 429),
        },
        detail: {
          tags: ["Accounts"],
          summary: "Register a company",
          security: [],
          description:
            "Creates a company and its first user (uid = netid) in one transaction. With `mode: dry` every check " +
            "runs, uniqueness included, and nothing is saved (`dryRun: true`). 400 lists every failing field; 409 " +
            "names the field already registered (`field`: netid, mainEmail or mainPhone). 429 RATE_LIMITED " +
            "(Retry-After) after RATE_LIMIT_REGISTER_PER_HOUR registrations (default 20, dry runs included) from " +
            "one client address within an hour.",
        },
      },
    )
    .post(
      "/token",
      async ({ body, request, set }) => {
        const user = await login(deps.login, { login: body.uid, password: body.pw, clientAddress: addressOf(request) });
        const { token, exp } = await deps.coreTokens.issue(user.uid, user.netid, deps.login.clock.now());
        set.headers.authorization = `Bearer ${token}`;
        return { success: true as const, exp, token };
      },
      {
        body: Credentials,
        response: {
          200: t.Object({
            success: t.Literal(true),
            exp: t.Number({ description: "Expiry, Unix time in seconds" }),
            token: t.String({ description: "HS256 JWT; also sent in the Authorization response header as `Bearer <token>`" }),
          }),
          ...errors(400, 401, 429),
        },
        detail: {
          tags: ["Accounts"],
          summary: "Get a core access token",
          security: [],
          description:
            "Logs in with uid (or e-mail) and password. Unknown user and wrong password answer the same 401. After " +
            "10 failures in 15 minutes for an account (its uid and e-mail count together, any letter case; 50 for " +
            "a client address) every attempt is 429 with Retry-After (seconds) until the window passes.",
        },
      },
    )
    .post(
      "/token/release",
      async ({ request }) => {
        const caller = await deps.authenticator.releaseCore(request.headers.get("authorization"), request.headers.get("token"));
        deps.login.audit.record(
          { type: "token.released", uid: caller.uid, netid: caller.netid, address: addressOf(request), detail: "core token" },
          deps.login.clock.now(),
        );
        return { success: true as const };
      },
      {
        response: { 200: t.Object({ success: t.Literal(true) }), ...errors(401) },
        detail: {
          tags: ["Accounts"],
          summary: "Sign a core access token out",
          security: [{ bearer: [] }],
          description:
            "Ends the bearer token sent with this request before its `exp`: from now on it is 401 `INVALID_TOKEN` " +
            "on every route and every instance sharing the database. Other tokens of the same user keep working " +
            "(each sign-in has its own). Releasing a token that no longer works is 401 `INVALID_TOKEN`. The " +
            "console's Sign out calls this and `releaseToken` for its platform token.",
        },
      },
    )
    .get(
      "/user/check",
      async ({ query, request, set }) => {
        await deps.accountChecks.limiter.check("accountCheckPerMinute", `address:${addressOf(request)}`, set.headers as Record<string, string>);
        // The bare array GNet's account check answers, one entry per key asked.
        return checkAccounts(deps.accountChecks, query);
      },
      {
        query: t.Object({
          username: t.Optional(t.String({ maxLength: 200, description: "A login (uid or netid), case-insensitive", examples: ["ACME-LIMO"] })),
          email: t.Optional(
            t.String({
              maxLength: 300,
              description: "Trimmed, composed (NFC), lower-cased and its domain in Unicode, as registration stores it",
              examples: ["dispatch@acme-limo.example"],
            }),
          ),
          phone: t.Optional(
            t.String({
              maxLength: 60,
              description: "Any formatting; compared in E.164 (a national number needs countryCode)",
              examples: ["+1 (212) 555-0101"],
            }),
          ),
          countryCode: t.Optional(t.String({ maxLength: 10, description: "ISO 3166 alpha-2 country of a national phone number", examples: ["US"] })),
        }),
        response: { 200: t.Array(AccountCheck), ...errors(400, 429) },
        detail: {
          tags: ["Accounts"],
          summary: "Is a username, e-mail or phone registered already?",
          description:
            "No credential. One answer per key given (username, email, phone — in that order): found or not, and " +
            "the normalised value compared; never which company holds it. Throttled per client address: 20 checks " +
            "a minute, then 429 `RATE_LIMITED` with Retry-After. 400 when no key is given or the phone is not a " +
            "phone number.",
        },
      },
    );
}
