import type { Harness } from "./harness";

/** A valid fleet entry in API shape, near JFK unless overridden. */
export function vehicle(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: "SEDAN", name: "Lincoln Continental", maxPassengers: 3, maxLuggage: 3, lat: 40.65, lon: -73.79, airports: ["JFK"], minimum_rate: 80, hourly_rate: 70, ...overrides };
}

/** A registered company with a core token; `plan` set through the service when given. */
export async function company(h: Harness, options: { coType?: string; plan?: "FREE" | "PROFESSIONAL" | "ENTERPRISE" } = {}) {
  const c = await h.registerCompany({ coType: options.coType ?? "IO" });
  if (options.plan) await h.services.companies.setPlan(c.netid, options.plan);
  const token = await h.coreToken(c.netid, c.password);
  return { ...c, token, auth: { authorization: `Bearer ${token}` } };
}

/** Adds a vehicle through the API and returns its slug. */
export async function addVehicle(h: Harness, auth: Record<string, string>, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request("POST", "/api/fleet", { body: vehicle(overrides), headers: auth });
  if (res.status !== 200) throw new Error(`add vehicle failed: ${res.status} ${res.text}`);
  return res.body.data.slug;
}
