import { NotFoundError } from "../errors";
import type { Caller, CompanyRepository } from "../ports";

/** Whether a company is a sandbox (its trips answered by the simulated dispatcher). */
export interface SandboxFlags {
  isSandbox(netid: string): Promise<boolean>;
}

export interface OwnCompanyDeps {
  companies: Pick<CompanyRepository, "findByNetid">;
  sandboxes: SandboxFlags;
}

/** The caller's own company: who it is, what kind (IO operator or CO booking company), its plan and sandbox flag. */
export async function ownCompany(deps: OwnCompanyDeps, caller: Caller) {
  const company = await deps.companies.findByNetid(caller.netid);
  // A company removed while a token of it still lives.
  if (!company) throw new NotFoundError("No such company", "COMPANY_NOT_FOUND");
  return { netid: company.netid, name: company.name, coType: company.coType, plan: company.plan, sandbox: await deps.sandboxes.isSandbox(company.netid) };
}
