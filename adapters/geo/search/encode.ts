import type { JsonBytes } from "../../../domain/shared/json-bytes";
import { round, scoreOf } from "../../../domain/fleet/search";
import type { FoundPage } from "./found";

/**
 * Writes a page of matches as the JSON array of its fleet items, straight from the snapshots' columns: the bytes
 * JSON.stringify writes for the search's FleetItem objects (same members in the same order, same escapes and
 * number formats), without making those objects or any intermediate string.
 */
export function writeFleetItems(page: FoundPage | undefined, radiusKm: number, out: JsonBytes): void {
  out.ascii("[");
  const n = page ? page.length : 0;
  for (let i = 0; i < n; i++) {
    const snapshot = page!.snapshots[page!.from[i]];
    const id = page!.ids[i];
    const distanceKm = page!.dist[i];
    const p = snapshot.parts;
    const t = p.textId[id];
    const r = p.rateId[id];
    const luggage = p.maxLuggage[id];
    out.ascii(i === 0 ? '{"netid":' : ',{"netid":').string(p.netids[p.netidId[id]]);
    out.ascii(',"type":').string(p.textTypes[t]);
    out.ascii(',"name":').string(p.names[t]);
    out.ascii(',"description":').string(p.descriptions[t]);
    out.ascii(',"imageUrl":').string(p.imageUrls[p.imageId[id]]);
    out.ascii(',"maxPassengers":').number(p.maxPassengers[id]);
    out.ascii(',"maxLuggage":');
    if (luggage < 0) out.ascii("null");
    else out.number(luggage);
    out.ascii(',"lat":').number(snapshot.lat(id));
    out.ascii(',"lon":').number(snapshot.lon(id));
    out.ascii(',"distanceKm":').number(round(distanceKm, 2));
    out.ascii(',"score":').number(scoreOf(distanceKm, radiusKm));
    out.ascii(',"minimum_rate":').number(Number(p.rates[3 * r]));
    out.ascii(',"hourly_rate":').number(Number(p.rates[3 * r + 1]));
    out.ascii(',"slug":').string(snapshot.slug(id));
    out.ascii("}");
  }
  out.ascii("]");
}
