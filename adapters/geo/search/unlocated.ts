import type { UnlocatedCount } from "../../../domain/fleet/ports";
import { matchesAllWords } from "../../../domain/fleet/text";
import type { QuotableVehicle } from "../../../domain/fleet/entry";
import type { UnlocatedEntry } from "../parts";

/** Active entries without a position, by airport served, for MISSING_GPS warnings. */
export class UnlocatedIndex {
  private readonly byAirport = new Map<string, number[]>();

  constructor(private readonly entries: UnlocatedEntry[]) {
    entries.forEach((e, i) => {
      for (const code of e.airports) {
        const list = this.byAirport.get(code);
        if (list) list.push(i);
        else this.byAirport.set(code, [i]);
      }
    });
  }

  /** One company's entries listing `airport`, as a quote reads them. */
  listing(airport: string, netid: string): QuotableVehicle[] {
    const found: QuotableVehicle[] = [];
    for (const i of this.byAirport.get(airport) ?? []) {
      const e = this.entries[i];
      if (e.netid === netid) found.push({ ...e.vehicle, slug: e.slug, type: e.type, active: true });
    }
    return found;
  }

  /** Entries serving one of `airports` and passing the filters, per company (netid order). */
  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }): UnlocatedCount[] {
    const wanted = filter.types ? new Set(filter.types) : undefined;
    const perCompany = new Map<string, { entries: Set<number>; airports: Set<string> }>();
    for (const code of airports) {
      for (const i of this.byAirport.get(code) ?? []) {
        const e = this.entries[i];
        if (wanted && !wanted.has(e.type)) continue;
        if (!matchesAllWords(e.searchText, filter.words)) continue;
        let company = perCompany.get(e.netid);
        if (!company) perCompany.set(e.netid, (company = { entries: new Set(), airports: new Set() }));
        company.entries.add(i);
        company.airports.add(code);
      }
    }
    return [...perCompany]
      .map(([netid, c]) => ({ netid, count: c.entries.size, airports: [...c.airports] }))
      .sort((a, b) => (a.netid < b.netid ? -1 : a.netid > b.netid ? 1 : 0));
  }
}
