import { ValidationError, type FieldError } from "../errors";
import { normalizeEmail, normalizePhone } from "../company/registration";
import type { CompanyRepository } from "../ports";

export interface CheckAccountsDeps {
  companies: Pick<CompanyRepository, "findTaken">;
}

export interface AccountCheckInput {
  username?: string;
  email?: string;
  phone?: string;
  countryCode?: string;
}

/** One answer: which key was asked, whether an account holds it, and the value as it was compared. */
export interface AccountCheck {
  query: "username" | "email" | "phone";
  found: boolean;
  /** The normalised value compared (lower-cased e-mail, E.164 phone) — never anything about the account found. */
  result: string;
}

const MAX = { username: 100, email: 254 } as const;

/**
 * Check accounts: normalise each given key as registration does (e-mail trimmed and lower-cased, phone to
 * E.164, usernames case-insensitively), then ask whether a company or user holds it. Answers found or not, nothing more.
 */
export async function checkAccounts(deps: CheckAccountsDeps, input: AccountCheckInput): Promise<AccountCheck[]> {
  const errors: FieldError[] = [];
  const username = input.username?.trim() || undefined;
  const email = input.email !== undefined && input.email.trim() !== "" ? normalizeEmail(input.email) : undefined;
  let phone: string | undefined;
  if (username && username.length > MAX.username) errors.push({ field: "username", message: `must be at most ${MAX.username} characters` });
  if (email && email.length > MAX.email) errors.push({ field: "email", message: `must be at most ${MAX.email} characters` });
  if (input.phone !== undefined && input.phone.trim() !== "") {
    const normalised = normalizePhone(input.phone, input.countryCode);
    if ("error" in normalised) errors.push({ field: "phone", message: normalised.error });
    else phone = normalised.e164;
  }
  if (!username && !email && !phone && errors.length === 0) errors.push({ field: "query", message: "give at least one of username, email, phone" });
  if (errors.length) throw new ValidationError(errors);

  // An empty e-mail or phone matches no account: each key is asked on its own.
  const taken = async (candidate: { netid?: string; mainEmail?: string; mainPhone?: string }) =>
    deps.companies.findTaken({ mainEmail: "", mainPhone: "", ...candidate });
  const out: AccountCheck[] = [];
  if (username) out.push({ query: "username", found: (await taken({ netid: username })).includes("netid"), result: username.toLowerCase() });
  if (email) out.push({ query: "email", found: (await taken({ mainEmail: email })).includes("mainEmail"), result: email });
  if (phone) out.push({ query: "phone", found: (await taken({ mainPhone: phone })).includes("mainPhone"), result: phone });
  return out;
}
