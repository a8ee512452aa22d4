import type { FleetChange } from "../../../domain/fleet/ports";
import type { IndexRow } from "../../../domain/fleet/source";
import type { FleetSnapshot } from "./snapshot";

/**
 * Gathers where changed entries were and are, for the change listeners of an overlay refresh: call `add`
 * with the changed slugs before their rows are re-read (where the current view shows them) and again after
 * (where the new view shows them). A slug's row in `rows` is what the view shows (null: not shown); a slug
 * without one is shown as the base has it.
 */
export class ChangeExtent {
  readonly change: FleetChange = { points: [], airports: [] };

  constructor(private readonly base: FleetSnapshot) {}

  add(slugs: readonly string[], rows: ReadonlyMap<string, IndexRow | null>): void {
    const inBase = new Set<string>();
    for (const slug of slugs) {
      const row = rows.get(slug);
      if (row === null) continue;
      if (row === undefined) {
        const id = this.base.idOf(slug);
        if (id >= 0) {
          const entry = this.base.entry(id);
          this.change.points.push({ lat: entry.lat, lon: entry.lon });
        } else inBase.add(slug);
      } else if (row.lat !== null && row.lon !== null) this.change.points.push({ lat: row.lat, lon: row.lon });
      else this.change.airports.push(...(typeof row.airports === "string" ? (row.airports ? row.airports.split(",") : []) : row.airports));
    }
    // Entries of the base without a position: one pass over them, only when a changed slug may be one.
    if (inBase.size > 0) for (const e of this.base.unlocatedEntries) if (inBase.has(e.slug)) this.change.airports.push(...e.airports);
  }
}
