import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldError } from "../errors";
import { FLEET_QUOTA, type Plan } from "../company/plan";
import { notAnOperator, offersRides } from "../company/offers";
import type { CompanyRepository } from "../ports";
import type { AirportDirectory } from "../airports";
import type { Caller, Clock } from "../ports";
import type { FleetEntry } from "../fleet/entry";
import { ExternalIdTakenError, FleetFullError, SlugTakenError, VehiclesHeldError } from "../fleet/ports";
import type { FleetRepository, FleetSearchIndex, NewFleetEntry } from "../fleet/ports";
import { givenSlug, planImport, type ImportMode, type ImportRow } from "../fleet/import-plan";
import { inputOf, validateFleetEntry, type FleetEntryDraft, type FleetEntryInput } from "../fleet/validation";
import { slugBase } from "../fleet/slug";
import { fleetListing, type FleetListingQuery } from "../fleet/listing";

export interface ManageFleetDeps {
  fleet: FleetRepository;
  index: FleetSearchIndex;
  airports: AirportDirectory;
  clock: Clock;
  /** Where a company's plan (and so its fleet quota) is read. */
  companies: Pick<CompanyRepository, "findByNetid">;
}

export const MAX_IMPORT_ENTRIES = 10_000;
/** At most this many row errors are reported; the message still says how many there were. */
export const MAX_REPORTED_ERRORS = 1000;

/** One failing field of one imported row (0-based `row`). */
export interface RowError {
  row: number;
  field: string;
  message: string;
}

/** An import refused because rows are invalid; nothing was saved. Fields read `[12].maxPassengers`. */
export class FleetImportError extends ValidationError {
  constructor(readonly rows: RowError[]) {
    const rowCount = new Set(rows.map((r) => r.row)).size;
    super(
      rows.slice(0, MAX_REPORTED_ERRORS).map((r) => ({ field: `[${r.row}].${r.field}`, message: r.message })),
      `Import refused, nothing saved: ${rows.length} error${rows.length === 1 ? "" : "s"} in ${rowCount} row${rowCount === 1 ? "" : "s"}`,
    );
  }
}

/**
 * List fleet: one page of the caller's own company's entries, in the order and with the filters asked (400 naming
 * each bad parameter); `total` counts the entries that pass the filters.
 */
export async function listFleet(deps: ManageFleetDeps, caller: Caller, query: FleetListingQuery) {
  const listing = fleetListing(query);
  const { items, total } = await deps.fleet.listByNetid(caller.netid, listing);
  return { items, total, limit: listing.limit, offset: listing.offset };
}

/**
 * Every rule a fleet entry as sent breaks, saving nothing: what the HTTP layer adds to a body's type errors so a 400
 * names every failing field (docs/integration.md#errors). `sentOnly`: a change (PATCH) is checked for the fields it sends.
 */
export function fleetEntryProblems(deps: ManageFleetDeps, input: FleetEntryInput, sentOnly = false): FieldError[] {
  const checked = validateFleetEntry(input, { isKnownAirport: knownAirport(deps) });
  if (checked.ok) return [];
  const sent = Object.keys(input ?? {});
  return sentOnly ? checked.errors.filter((e) => sent.some((key) => e.field === key || e.field.startsWith(`${key}[`))) : checked.errors;
}

/** Add a vehicle: a company that offers rides, validate, give it a fresh slug, save, let search see it. */
export async function addFleetEntry(deps: ManageFleetDeps, caller: Caller, input: FleetEntryInput): Promise<FleetEntry> {
  const plan = await operatorPlan(deps, caller.netid);
  const checked = validateFleetEntry(input, { isKnownAirport: knownAirport(deps) });
  if (!checked.ok) throw new ValidationError(checked.errors);
  const quota = await ensureRoom(deps, caller.netid, 1, plan);
  const [saved] = await externalIdFree(() =>
    withinQuota(quota, 1, () => deps.fleet.insertAll([newEntry(caller.netid, checked.value, deps.clock.now())], undefined, quota?.max)),
  );
  deps.index.fleetChanged([saved.slug]);
  return saved;
}

/** One of the caller's vehicles; another company's slug is as unknown as a missing one. */
export async function getFleetEntry(deps: ManageFleetDeps, caller: Caller, slug: string): Promise<FleetEntry> {
  const entry = await deps.fleet.find(caller.netid, slug);
  if (!entry) throw notFound();
  return entry;
}

/**
 * Change a vehicle: merge the sent fields over the stored ones, validate the whole, save. The slug never changes.
 * A requester-only company may only set its vehicles inactive (docs/security.md#requester-only-companies).
 */
export async function updateFleetEntry(deps: ManageFleetDeps, caller: Caller, slug: string, patch: FleetEntryInput): Promise<FleetEntry> {
  const current = await getFleetEntry(deps, caller, slug);
  const company = await deps.companies.findByNetid(caller.netid);
  if (company && !offersRides(company) && patch?.active !== false) throw notAnOperator("it may only set its vehicles inactive or delete them");
  const merged: FleetEntryInput = { ...inputOf(current) };
  for (const [key, value] of Object.entries(patch ?? {})) if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  // Clearing one coordinate alone must fail the pair rule, not silently keep the other.
  const checked = validateFleetEntry(merged, { isKnownAirport: knownAirport(deps) });
  if (!checked.ok) throw new ValidationError(checked.errors);
  const updated: FleetEntry = { ...current, ...checked.value, updatedAt: deps.clock.now() };
  if (!(await externalIdFree(() => deps.fleet.update(updated)))) throw notFound();
  deps.index.fleetChanged([updated.slug]);
  return updated;
}

/**
 * Remove a vehicle of the caller's company; 409 VEHICLES_HELD, nothing deleted, while a live booking holds it
 * (docs/availability.md#a-held-vehicle-cannot-be-deleted).
 */
export async function removeFleetEntry(deps: ManageFleetDeps, caller: Caller, slug: string): Promise<void> {
  const entry = await getFleetEntry(deps, caller, slug);
  let removed: boolean;
  try {
    removed = await deps.fleet.remove(caller.netid, entry.slug);
  } catch (error) {
    if (error instanceof VehiclesHeldError) throw vehiclesHeld(error, "Not deleted", "cancel or finish it first");
    throw error;
  }
  if (!removed) throw notFound();
  deps.index.fleetChanged([entry.slug]);
}

/** 409 VEHICLES_HELD naming each held vehicle and the booking holding it. */
function vehiclesHeld(error: VehiclesHeldError, refused: string, remedy: string): ConflictError {
  return new ConflictError(`${refused}, nothing changed: live bookings hold ${error.held.map((h) => h.slug).join(", ")}; ${remedy}`, "VEHICLES_HELD", {
    vehicles: error.held.map((h) => ({ slug: h.slug, transactionId: h.transactionId })),
  });
}

/** What an import did (docs/operator.md#fleet-import): the entries it added, rewrote and deleted, and how many rows matched an entry as it was. */
export interface ImportOutcome {
  created: FleetEntry[];
  updated: FleetEntry[];
  deleted: string[];
  unchanged: number;
}

/** Entries read per page when an import compares a file with the fleet already there. */
const IMPORT_READ_PAGE = 5000;

/**
 * Import a fleet: at most 10,000 entries, every row validated first; one invalid row refuses the whole import
 * (FleetImportError lists every failing row and field). Then, by `mode` (docs/operator.md#fleet-import): upsert (default) updates the entry a
 * row names by externalId or slug and adds the rest, replace also deletes the entries no row names (409
 * VEHICLES_HELD, nothing changed, when live bookings hold one), append adds every row. All in one transaction.
 */
export async function importFleet(
  deps: ManageFleetDeps,
  netid: string,
  rows: unknown[],
  onProgress?: (phase: "validate" | "save", done: number, total: number) => void,
  mode: ImportMode = "upsert",
): Promise<ImportOutcome> {
  const companyPlan = await operatorPlan(deps, netid);
  if (rows.length > MAX_IMPORT_ENTRIES)
    throw new ValidationError([{ field: "body", message: `must hold at most ${MAX_IMPORT_ENTRIES} entries, got ${rows.length}` }]);
  const isKnownAirport = knownAirport(deps);
  const now = deps.clock.now();
  const rowErrors: RowError[] = [];
  const valid: ImportRow[] = [];
  for (let row = 0; row < rows.length; row++) {
    const input = rows[row] as FleetEntryInput & { slug?: unknown };
    const checked = validateFleetEntry(input, { isKnownAirport });
    const slug = input && typeof input === "object" ? givenSlug(input.slug) : {};
    if (slug.problem) rowErrors.push({ row, field: "slug", message: slug.problem });
    if (checked.ok) valid.push({ row, draft: checked.value, slug: slug.slug });
    else for (const e of checked.errors) rowErrors.push({ row, field: e.field, message: e.message });
    if (onProgress && (row % 500 === 499 || row === rows.length - 1)) onProgress("validate", row + 1, rows.length);
  }
  if (rowErrors.length > 0) throw new FleetImportError(rowErrors);
  const existing = mode === "append" && !valid.some((r) => r.draft.externalId) ? [] : await wholeFleet(deps, netid);
  const planned = planImport(netid, mode, valid, existing, now);
  if (!planned.ok) throw new FleetImportError(planned.errors);
  const { plan } = planned;
  const removes = plan.removes.map((e) => e.slug);
  const quota = await ensureRoom(deps, netid, plan.inserts.length - removes.length, companyPlan);
  let created: FleetEntry[];
  try {
    created = await withinQuota(quota, plan.inserts.length, () =>
      deps.fleet.applyImport(
        netid,
        { removes, updates: plan.updates, inserts: plan.inserts },
        onProgress && ((done) => onProgress("save", done, plan.inserts.length)),
        quota?.max,
      ),
    );
  } catch (error) {
    if (error instanceof VehiclesHeldError) throw vehiclesHeld(error, "Import refused", "cancel or finish them, or keep these entries in the file");
    if (error instanceof ExternalIdTakenError) throw new ValidationError([{ field: "externalId", message: "is already used by another entry of your fleet" }]);
    if (error instanceof SlugTakenError) {
      const row = valid.find((r) => r.slug === error.slug)?.row ?? 0;
      throw new FleetImportError([{ row, field: "slug", message: `${error.slug} is taken by another company's entry; leave slug out or use externalId` }]);
    }
    throw error;
  }
  deps.index.fleetChanged([...created.map((e) => e.slug), ...plan.updates.map((e) => e.slug), ...removes]);
  return { created, updated: plan.updates, deleted: removes, unchanged: plan.unchanged };
}

/** Every entry of the company, a page at a time. */
async function wholeFleet(deps: ManageFleetDeps, netid: string): Promise<FleetEntry[]> {
  const all: FleetEntry[] = [];
  for (let offset = 0; ; offset += IMPORT_READ_PAGE) {
    const { items } = await deps.fleet.listByNetid(netid, { limit: IMPORT_READ_PAGE, offset });
    all.push(...items);
    if (items.length < IMPORT_READ_PAGE) return all;
  }
}

/**
 * Refuses a change that would take the company's fleet past its plan's quota (FREE 2,000, PROFESSIONAL 50,000,
 * ENTERPRISE unlimited): 403 FLEET_QUOTA_EXCEEDED, nothing saved. Checked here for a quick answer, and again
 * inside the insert's transaction (simultaneous imports); returns the quota for that second check.
 */
async function ensureRoom(deps: ManageFleetDeps, netid: string, adding: number, plan: Plan): Promise<{ plan: Plan; max: number } | undefined> {
  const max = FLEET_QUOTA[plan];
  if (max === undefined) return undefined;
  const { total } = await deps.fleet.listByNetid(netid, { limit: 1, offset: 0 });
  if (total + adding > max) throw quotaExceeded(plan, max, total, adding);
  return { plan, max };
}

/**
 * The plan of a company that offers rides; a requester-only (CO) company adds no vehicles: 403 NOT_AN_OPERATOR,
 * before anything is read or saved (docs/security.md#requester-only-companies).
 */
async function operatorPlan(deps: ManageFleetDeps, netid: string): Promise<Plan> {
  const company = await deps.companies.findByNetid(netid);
  if (company && !offersRides(company)) throw notAnOperator("it cannot add vehicles");
  return company?.plan ?? "FREE";
}

async function withinQuota<T>(quota: { plan: Plan; max: number } | undefined, adding: number, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (quota && error instanceof FleetFullError) throw quotaExceeded(quota.plan, quota.max, error.current, adding);
    throw error;
  }
}

function quotaExceeded(plan: Plan, max: number, current: number, adding: number): ForbiddenError {
  const n = (v: number) => v.toLocaleString("en-US");
  return new ForbiddenError(
    `The ${plan} plan allows ${n(max)} fleet entries; you have ${n(current)} and this would add ${n(adding)}. Remove entries or change plan`,
    "FLEET_QUOTA_EXCEEDED",
  );
}

/** A duplicate externalId of the company: 400 naming the field. */
async function externalIdFree<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ExternalIdTakenError) throw new ValidationError([{ field: "externalId", message: "is already used by another entry of your fleet" }]);
    throw error;
  }
}

function newEntry(netid: string, draft: FleetEntryDraft, now: number): NewFleetEntry {
  return { ...draft, netid, slugBase: slugBase(netid, draft.name), createdAt: now, updatedAt: now };
}

function knownAirport(deps: ManageFleetDeps) {
  return (code: string) => deps.airports.lookup(code) !== undefined;
}

/** The same answer for another company's slug and an unknown one, byte for byte (nothing to learn from it). */
function notFound(): NotFoundError {
  return new NotFoundError("No such fleet entry in your fleet", "FLEET_ENTRY_NOT_FOUND");
}
