import type { FleetSearchIndex } from "../../../domain/fleet/ports";
import type { FleetItem, FleetSearchResult } from "../../../domain/usecases/search-fleet";

/** Entries whose item JSON is kept (the set starts over beyond it). */
const MAX_FRAGMENTS = 20_000;

/**
 * Writes a search answer as `JSON.stringify({ success: true, data })` would, byte for byte. Within one index
 * generation an entry's fields do not change: the JSON of an item around its distance and score is built
 * once per entry and generation, so an entry found again (most searches are near the same airports) costs
 * two string joins instead of fourteen fields.
 */
export class SearchAnswerJson {
  private fragments = new Map<string, readonly [string, string]>();
  private generation = -1;

  constructor(private readonly index: Pick<FleetSearchIndex, "generation">) {}

  /** The answer's JSON; call it in the same synchronous step as the search that produced `result`. */
  encode(result: FleetSearchResult): string {
    if (this.generation !== this.index.generation) {
      this.fragments = new Map();
      this.generation = this.index.generation;
    }
    let out = '{"success":true,"data":{"items":[';
    for (let i = 0; i < result.items.length; i++) {
      const item = result.items[i];
      let parts = this.fragments.get(item.slug);
      if (!parts) {
        parts = fragmentsOf(item);
        if (this.fragments.size >= MAX_FRAGMENTS) this.fragments = new Map();
        this.fragments.set(item.slug, parts);
      }
      if (i > 0) out += ",";
      out += parts[0] + JSON.stringify(item.distanceKm) + ',"score":' + JSON.stringify(item.score) + parts[1];
    }
    const { total, limit, offset, warnings } = result;
    return `${out}],"total":${JSON.stringify(total)},"limit":${JSON.stringify(limit)},"offset":${JSON.stringify(offset)},"warnings":${JSON.stringify(warnings)}}}`;
  }
}

/** An item's JSON before its distance (up to `"distanceKm":`) and after its score, in FleetItem's key order. */
function fragmentsOf(item: FleetItem): readonly [string, string] {
  const s = JSON.stringify;
  return [
    `{"netid":${s(item.netid)},"type":${s(item.type)},"name":${s(item.name)},"description":${s(item.description)},"imageUrl":${s(item.imageUrl)},"maxPassengers":${s(item.maxPassengers)},"maxLuggage":${s(item.maxLuggage)},"lat":${s(item.lat)},"lon":${s(item.lon)},"distanceKm":`,
    `,"minimum_rate":${s(item.minimum_rate)},"hourly_rate":${s(item.hourly_rate)},"slug":${s(item.slug)}}`,
  ];
}
