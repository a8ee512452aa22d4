import { ValidationError, type FieldError } from "../errors";
import { alreadyRegistered, netidCandidates, validateRegistration, type Company, type RegistrationInput } from "../company/registration";
import type { AuditLog, Clock, CompanyRepository, PasswordHasher } from "../ports";

export interface RegisterCompanyDeps {
  companies: CompanyRepository;
  hasher: PasswordHasher;
  clock: Clock;
  isCommonPassword: (password: string) => boolean;
  audit: AuditLog;
}

export interface RegistrationResult {
  dryRun: boolean;
  company: Pick<Company, "netid" | "name" | "coType" | "plan">;
  uid: string;
}

const FIELD_LABEL = { netid: "netid", mainEmail: "e-mail address", mainPhone: "phone number" } as const;

/**
 * Register company: check every rule, normalise, ensure netid, e-mail and phone are free,
 * then (unless dry) save the company and its first user together.
 */
/** Every rule a registration as sent breaks, saving nothing (the HTTP layer adds them to a body's type errors, docs/integration.md#errors). */
export function registrationProblems(deps: Pick<RegisterCompanyDeps, "isCommonPassword">, input: RegistrationInput): FieldError[] {
  const checked = validateRegistration(input, deps.isCommonPassword);
  return checked.ok ? [] : checked.errors;
}

export async function registerCompany(deps: RegisterCompanyDeps, input: RegistrationInput): Promise<RegistrationResult> {
  const checked = validateRegistration(input, deps.isCommonPassword);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const reg = checked.value;

  const taken = await deps.companies.findTaken({ netid: reg.netid, mainEmail: reg.mainEmail, mainPhone: reg.mainPhone });
  if (taken.length > 0) throw alreadyRegistered(taken, FIELD_LABEL[taken[0]]);

  const netid = reg.netid ?? (await firstFreeNetid(deps.companies, reg.name));
  const company: Company = {
    netid,
    name: reg.name,
    coType: reg.coType,
    plan: "FREE",
    mainEmail: reg.mainEmail,
    mainPhone: reg.mainPhone,
    address: reg.address,
    notes: reg.notes,
    createdAt: deps.clock.now(),
  };
  const result: RegistrationResult = { dryRun: reg.dryRun, company: { netid, name: reg.name, coType: reg.coType, plan: "FREE" }, uid: netid };
  if (reg.dryRun) return result;

  const passwordHash = await deps.hasher.hash(reg.password);
  await deps.companies.createWithFirstUser(company, {
    uid: netid,
    netid,
    email: reg.mainEmail,
    passwordHash,
    createdAt: company.createdAt,
  });
  deps.audit.record({ type: "company.registered", netid, uid: netid, detail: `coType ${reg.coType}` }, company.createdAt);
  return result;
}

async function firstFreeNetid(companies: CompanyRepository, name: string): Promise<string> {
  for (const candidate of netidCandidates(name)) {
    if (!(await companies.findByNetid(candidate))) return candidate;
  }
  throw new Error("unreachable: netid candidates are infinite");
}
