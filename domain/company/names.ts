import type { Company } from "./registration";

/**
 * Company names by the netid asked (any case; unknown netids left out), for a store's `namesOf`: `known` answers
 * a lower-case netid from memory where it can (the store's account cache), `read` fetches the rest in one read.
 */
export async function companyNames(
  netids: readonly string[],
  known: (netidLower: string) => Pick<Company, "name"> | undefined,
  read: (netidsLower: string[]) => Promise<ReadonlyArray<{ netidLower: string; name: string }>>,
): Promise<Map<string, string>> {
  const byLower = new Map<string, string>();
  const missing = new Set<string>();
  for (const netid of netids) {
    const key = netid.toLowerCase();
    const company = known(key);
    if (company) byLower.set(key, company.name);
    else missing.add(key);
  }
  if (missing.size > 0) for (const row of await read([...missing])) byLower.set(row.netidLower, row.name);
  const names = new Map<string, string>();
  for (const netid of netids) {
    const name = byLower.get(netid.toLowerCase());
    if (name !== undefined) names.set(netid, name);
  }
  return names;
}
