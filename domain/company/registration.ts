import isEmail from "validator/lib/isEmail";
import { canonicalDomain, homographProblem } from "./email-domain";
import { hiddenCharacterProblem, nameProblem } from "../shared/unicode-text";
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import { ConflictError, type FieldError } from "../errors";
import type { Plan } from "./plan";

/** Company types: IO runs vehicles, CO books rides. */
export const CO_TYPES = ["IO", "CO"] as const;
export type CoType = (typeof CO_TYPES)[number];

/** What a registration request may carry; every field arrives as an optional string. */
export interface RegistrationInput {
  name?: string;
  netid?: string;
  mainEmail?: string;
  password?: string;
  confirmPassword?: string;
  mainPhone?: string;
  countryCode?: string;
  notes?: string;
  address?: string;
  mode?: string;
  coType?: string;
}

/** A registration that passed every rule, normalised. `netid` is absent when it must be generated. */
export interface ValidRegistration {
  name: string;
  netid?: string;
  mainEmail: string;
  password: string;
  mainPhone: string;
  notes: string | null;
  address: string | null;
  coType: CoType;
  dryRun: boolean;
}

/** The fields no two companies (and users) may share. */
export type UniqueField = "netid" | "mainEmail" | "mainPhone";

/** 409 ALREADY_REGISTERED naming each field `taken` (the first in the message, as `label`). */
export function alreadyRegistered(taken: UniqueField[], label: string = taken[0]): ConflictError {
  return new ConflictError(`This ${label} is already registered`, "ALREADY_REGISTERED", {
    field: taken[0],
    fields: taken,
    errors: taken.map((f) => ({ field: f, message: "is already registered" })),
  });
}

/** A registered company as the domain sees it. */
export interface Company {
  netid: string;
  name: string;
  coType: CoType;
  plan: Plan;
  mainEmail: string;
  mainPhone: string;
  address: string | null;
  notes: string | null;
  createdAt: number;
}

/** A company as storage keeps it: the same fields, with the type and plan as stored strings (and maybe more columns). */
export type StoredCompany = Omit<Company, "coType" | "plan"> & { coType: string; plan: string };

/** The Company of a stored row (extra columns left out); storage writes only valid types and plans. */
export function companyFromStored(row: StoredCompany): Company {
  return {
    netid: row.netid,
    name: row.name,
    coType: row.coType as CoType,
    plan: row.plan as Plan,
    mainEmail: row.mainEmail,
    mainPhone: row.mainPhone,
    address: row.address,
    notes: row.notes,
    createdAt: row.createdAt,
  };
}

export const NETID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/;
const LIMITS = { name: 250, email: 254, passwordMin: 8, passwordMax: 100, address: 500, notes: 2000 } as const;

/** validator's isEmail, which throws (URIError) on text that is not well-formed UTF-16, such as a lone surrogate. */
function validEmail(email: string): boolean {
  return email.isWellFormed() && isEmail(email);
}

/**
 * Trims an e-mail address, composes it (NFC: "é" typed as e + accent is the same address as "é"), lower-cases it
 * and spells its domain one way (punycode decoded): the form used for validation, uniqueness and login.
 */
export function normalizeEmail(email: string): string {
  const composed = email.trim().normalize("NFC").toLowerCase();
  const at = composed.lastIndexOf("@");
  return at < 0 ? composed : `${composed.slice(0, at + 1)}${canonicalDomain(composed.slice(at + 1))}`;
}

/**
 * Normalises a phone number to E.164. A national number needs `countryCode` (ISO 3166 alpha-2).
 * Returns an error message instead when the number is not a valid phone number.
 */
export function normalizePhone(phone: string, countryCode?: string): { e164: string } | { error: string } {
  const trimmed = phone.trim();
  if (trimmed.length === 0 || trimmed.length > 40) return { error: "must be a phone number" };
  const country = countryCode?.trim().toUpperCase();
  const parsed = parsePhoneNumberFromString(trimmed, country && isSupportedCountry(country) ? (country as CountryCode) : undefined);
  if (!parsed) {
    return trimmed.startsWith("+") || country
      ? { error: "is not a valid phone number" }
      : { error: "is a national number: add countryCode (ISO 3166 alpha-2) or use the +<country> form" };
  }
  if (!parsed.isValid()) return { error: "is not a valid phone number" };
  return { e164: parsed.number };
}

/**
 * Checks a registration request against every rule and reports all failing fields at once.
 * `isCommonPassword` is injected so the rule stays pure and testable.
 */
export function validateRegistration(
  input: RegistrationInput,
  isCommonPassword: (password: string) => boolean,
): { ok: true; value: ValidRegistration } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });

  const name = input.name?.trim() ?? "";
  if (name.length === 0) fail("name", "is required");
  else if (name.length > LIMITS.name) fail("name", `must be at most ${LIMITS.name} characters`);
  else if (nameProblem(name)) fail("name", nameProblem(name)!);

  let netid: string | undefined;
  if (input.netid !== undefined && input.netid !== "") {
    if (!NETID_PATTERN.test(input.netid)) fail("netid", "must be 3–32 characters of A-Z a-z 0-9 _ -, starting with a letter or digit");
    else if (isReservedNetid(input.netid)) fail("netid", "is reserved: choose another");
    else netid = input.netid;
  }

  const mainEmail = normalizeEmail(input.mainEmail ?? "");
  if (mainEmail.length === 0) fail("mainEmail", "is required");
  else if (mainEmail.length > LIMITS.email) fail("mainEmail", `must be at most ${LIMITS.email} characters`);
  else if (hiddenCharacterProblem(mainEmail)) fail("mainEmail", hiddenCharacterProblem(mainEmail)!);
  else if (!validEmail(mainEmail)) fail("mainEmail", "must be a valid e-mail address");
  else if (homographProblem(mainEmail.slice(mainEmail.lastIndexOf("@") + 1)))
    fail("mainEmail", `has a domain that ${homographProblem(mainEmail.slice(mainEmail.lastIndexOf("@") + 1))}`);

  const password = input.password ?? "";
  if (password.length === 0) fail("password", "is required");
  else if (password.length < LIMITS.passwordMin || password.length > LIMITS.passwordMax)
    fail("password", `must be ${LIMITS.passwordMin}–${LIMITS.passwordMax} characters`);
  else if (password.toLowerCase() === mainEmail || (netid && password.toLowerCase() === netid.toLowerCase()))
    fail("password", "must not equal the e-mail address or the netid");
  else if (isCommonPassword(password)) fail("password", "is too common; choose a less guessable password");

  if (input.confirmPassword === undefined || input.confirmPassword === "") fail("confirmPassword", "is required");
  else if (input.confirmPassword !== password) fail("confirmPassword", "must equal password");

  let mainPhone = "";
  const countryCode = input.countryCode?.trim();
  if (countryCode !== undefined && countryCode !== "" && !isSupportedCountry(countryCode.toUpperCase()))
    fail("countryCode", "must be an ISO 3166 alpha-2 country code");
  if (!input.mainPhone?.trim()) fail("mainPhone", "is required");
  else {
    const phone = normalizePhone(input.mainPhone, countryCode || undefined);
    if ("error" in phone) fail("mainPhone", phone.error);
    else mainPhone = phone.e164;
  }

  const coType = input.coType?.trim().toUpperCase() ?? "";
  if (coType.length === 0) fail("coType", "is required");
  else if (!(CO_TYPES as readonly string[]).includes(coType)) fail("coType", "must be IO (operator) or CO (booking company)");

  const address = input.address?.trim() || null;
  if (address && address.length > LIMITS.address) fail("address", `must be at most ${LIMITS.address} characters`);
  const notes = input.notes?.trim() || null;
  if (notes && notes.length > LIMITS.notes) fail("notes", `must be at most ${LIMITS.notes} characters`);

  const mode = input.mode?.trim().toLowerCase() || "live";
  if (mode !== "dry" && mode !== "live") fail("mode", "must be dry or live");

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: { name, netid, mainEmail, password, mainPhone, notes, address, coType: coType as CoType, dryRun: mode === "dry" },
  };
}

/** Netids that would pass for the exchange itself or an authority, in any letter case (issue 37 N12). */
const RESERVED_NETIDS: ReadonlySet<string> = new Set(
  ["tripswitch", "gnet", "admin", "administrator", "root", "system", "support", "security", "platform", "exchange", "api", "console", "metrics",
    "webhook", "webhooks", "null", "undefined", "anonymous", "nobody"],
);

/** Whether a netid is reserved, compared without letter case (`Admin`, `ADMIN` and `admin` alike). */
export function isReservedNetid(netid: string): boolean {
  return RESERVED_NETIDS.has(netid.trim().toLowerCase());
}

/**
 * Candidate netids generated from a company name: the upper-cased, accent-free name with
 * runs of other characters folded to "-", then the same with numeric suffixes -2, -3, …
 */
export function* netidCandidates(name: string): Generator<string> {
  let base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 26)
    .replace(/-+$/, "");
  if (base.length < 3) base = base.length === 0 ? "COMPANY" : `${base}-CO`;
  if (isReservedNetid(base)) base = `${base}-CO`;
  yield base;
  for (let n = 2; ; n++) yield `${base}-${n}`;
}
