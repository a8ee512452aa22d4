import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors";
import { NETID_PATTERN, type Company } from "../company/registration";
import { partnerSide, validateVehicleTypeMap, type PartnershipStatus, type RequestDirection, type VehicleTypeMap } from "../partners/partnership";
import type { PartnershipRepository } from "../partners/ports";
import type { AuditLog, Caller, Clock, CompanyRepository } from "../ports";

export interface PartnershipDeps {
  partnerships: PartnershipRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  clock: Clock;
  audit: AuditLog;
}

/** One partnership as its member sees it: the partner and where the partnership stands. */
export interface PartnerView {
  netid: string;
  name: string;
  status: PartnershipStatus;
  /** While pending: who asked. */
  direction?: RequestDirection;
}

/** The full listing adds the partner's company facts, its contact (once it is not just a request of yours) and both maps. */
export interface PartnerDetails extends PartnerView {
  coType: string;
  plan: string;
  mainEmail: string | null;
  mainPhone: string | null;
  /** How you translate this partner's vehicle types when it sends you trips. */
  vehicleTypes: VehicleTypeMap;
  /** How this partner translates your vehicle types when you send it trips. */
  partnerVehicleTypes: VehicleTypeMap;
}

/** The other company's netid as given, checked: well-formed and not the caller's own. */
function otherNetid(caller: Caller, netid: unknown): string {
  if (typeof netid !== "string" || !NETID_PATTERN.test(netid.trim()))
    throw new ValidationError([{ field: "netid", message: "must be a company netid: 3–32 characters of A-Z a-z 0-9 _ -" }]);
  if (netid.trim().toLowerCase() === caller.netid.toLowerCase())
    throw new ValidationError([{ field: "netid", message: "must be another company's netid, not your own" }]);
  return netid.trim();
}

async function partnerCompany(deps: PartnershipDeps, caller: Caller, netid: unknown): Promise<Company> {
  const given = otherNetid(caller, netid);
  const company = await deps.companies.findByNetid(given);
  if (!company) throw new NotFoundError(`No company has netid ${given}`, "COMPANY_NOT_FOUND");
  return company;
}

/**
 * The company of an existing partnership (requested or active) with the caller. An unknown netid answers exactly as
 * a company you have no partnership with (same status, code and message, in the spelling given), so the routes
 * that change nothing for a stranger cannot be used to learn which netids exist.
 */
async function partnershipCompany(deps: PartnershipDeps, caller: Caller, netid: unknown): Promise<Company> {
  const given = otherNetid(caller, netid);
  const company = await deps.companies.findByNetid(given);
  const current = company && (await deps.partnerships.find(caller.netid, company.netid));
  if (!company || !current) throw new NotFoundError(`You have no partnership with ${given}`, "PARTNERSHIP_NOT_FOUND");
  return company;
}

const record = (deps: PartnershipDeps, caller: Caller, detail: string) =>
  deps.audit.record({ type: "partnership.changed", netid: caller.netid, uid: caller.uid, detail }, deps.clock.now());

/**
 * Request a partnership: check the other company exists, refuse a duplicate, record the request. When the
 * other company had already asked the caller, both have now accepted: the partnership becomes active.
 */
export async function requestPartnership(deps: PartnershipDeps, caller: Caller, netid: unknown): Promise<PartnerView> {
  const other = await partnerCompany(deps, caller, netid);
  const current = await deps.partnerships.find(caller.netid, other.netid);
  if (current?.state === "active") throw new ConflictError(`You are already partners with ${other.netid}`, "ALREADY_PARTNERS");
  if (current && current.requestedBy.toLowerCase() === caller.netid.toLowerCase())
    throw new ConflictError(`You already asked ${other.netid}; it has not accepted yet`, "PARTNERSHIP_ALREADY_REQUESTED");
  if (current) {
    await deps.partnerships.activate(caller.netid, other.netid, deps.clock.now());
    record(deps, caller, `asked ${other.netid}, which had asked too: active`);
    return { netid: other.netid, name: other.name, status: "active" };
  }
  await deps.partnerships.create(caller.netid, other.netid, deps.clock.now());
  record(deps, caller, `asked ${other.netid}`);
  return { netid: other.netid, name: other.name, status: "pending", direction: "outgoing" };
}

/** Accept a partnership the other company asked for; accepting nothing (no request, your own, already active) is a conflict. */
export async function acceptPartnership(deps: PartnershipDeps, caller: Caller, netid: unknown): Promise<PartnerView> {
  const given = otherNetid(caller, netid);
  const other = await deps.companies.findByNetid(given);
  const current = other && (await deps.partnerships.find(caller.netid, other.netid));
  // An unknown netid has not asked either: the same answer, so accepting cannot tell which netids exist.
  if (!other || !current) throw new ConflictError(`${given} has not asked to partner with you`, "NO_PARTNERSHIP_REQUEST");
  if (current.state === "active") throw new ConflictError(`You are already partners with ${other.netid}`, "ALREADY_PARTNERS");
  if (current.requestedBy.toLowerCase() === caller.netid.toLowerCase())
    throw new ConflictError(`You asked ${other.netid}; only it can accept`, "NO_PARTNERSHIP_REQUEST");
  await deps.partnerships.activate(caller.netid, other.netid, deps.clock.now());
  record(deps, caller, `accepted ${other.netid}`);
  return { netid: other.netid, name: other.name, status: "active" };
}

/** End a partnership, or withdraw or decline a request: either side may. Both vehicle-type maps go with it. */
export async function endPartnership(deps: PartnershipDeps, caller: Caller, netid: unknown): Promise<{ netid: string; status: "ended" }> {
  const given = otherNetid(caller, netid);
  const other = await deps.companies.findByNetid(given);
  if (!other || !(await deps.partnerships.remove(caller.netid, other.netid)))
    throw new NotFoundError(`You have no partnership with ${given}`, "PARTNERSHIP_NOT_FOUND");
  record(deps, caller, `ended the partnership with ${other.netid}`);
  return { netid: other.netid, status: "ended" };
}

/** The caller's partnerships, oldest first; only a company's own list can be read. */
export async function listPartnerships(
  deps: PartnershipDeps,
  caller: Caller,
  netid: string,
  format: "short" | "full",
): Promise<Array<PartnerView | PartnerDetails>> {
  if (netid.toLowerCase() !== caller.netid.toLowerCase()) throw new ForbiddenError("You can list only your own company's partnerships", "NOT_YOUR_NETID");
  const out: Array<PartnerView | PartnerDetails> = [];
  for (const p of await deps.partnerships.listFor(caller.netid)) {
    const { partner, status, direction } = partnerSide(p, caller.netid);
    const company = await deps.companies.findByNetid(partner);
    if (!company) continue;
    const view: PartnerView = { netid: company.netid, name: company.name, status, ...(direction ? { direction } : {}) };
    if (format === "short") {
      out.push(view);
      continue;
    }
    // A company you merely asked has not agreed to share its contact with you yet.
    const shared = direction !== "outgoing";
    out.push({
      ...view,
      coType: company.coType,
      plan: company.plan,
      mainEmail: shared ? company.mainEmail : null,
      mainPhone: shared ? company.mainPhone : null,
      vehicleTypes: await deps.partnerships.vehicleTypes(caller.netid, company.netid),
      partnerVehicleTypes: await deps.partnerships.vehicleTypes(company.netid, caller.netid),
    });
  }
  return out;
}

/**
 * Set how the caller, as provider, translates a partner's vehicle types into its own (replacing the previous
 * map; `{}` clears it). The partnership must exist (requested or active); the map applies while it is active.
 */
export async function setPartnerVehicleTypes(
  deps: PartnershipDeps,
  caller: Caller,
  netid: unknown,
  input: unknown,
): Promise<{ netid: string; vehicleTypes: VehicleTypeMap }> {
  otherNetid(caller, netid);
  // The map is checked before the partner is looked up: a bad map is 400 for every netid alike.
  const checked = validateVehicleTypeMap(input);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const other = await partnershipCompany(deps, caller, netid);
  await deps.partnerships.setVehicleTypes(caller.netid, other.netid, checked.map);
  record(deps, caller, `set ${Object.keys(checked.map).length} vehicle type(s) for trips from ${other.netid}`);
  return { netid: other.netid, vehicleTypes: checked.map };
}
