import type { UnlocatedCount } from "../../../domain/fleet/ports";
import { matchesAllWords } from "../../../domain/fleet/text";
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

  /** The slugs of one company's entries listing `airport`. */
  slugsListing(airport: string, netid: string): string[] {
    const slugs: string[] = [];
    for (const i of this.byAirport.get(airport) ?? []) if (this.entries[i].netid === netid) slugs.push(this.entries[i].slug);
    return slugs;
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
