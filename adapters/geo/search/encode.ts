import { JsonBytes } from "../../../domain/shared/json-bytes";
import { round, scoreOf } from "../../../domain/fleet/search";
import type { FoundPage } from "./found";
import type { FleetSnapshot } from "./snapshot";

/** Entries whose encoded fields are kept per snapshot (the set starts over beyond it). */
const MAX_KEPT = 20_000;

/** Per snapshot, each entry's item bytes around its distance and score (`cut` is where they go), made on first use. */
const kept = new WeakMap<FleetSnapshot, Map<number, { bytes: Uint8Array; cut: number }>>();
const scratch = new JsonBytes(4096);

/**
 * Writes a page of matches as the JSON array of its fleet items: the bytes JSON.stringify writes for the search's
 * FleetItem objects (same members in the same order, same escapes and number formats), without making those
 * objects or an intermediate string. An entry's fields are encoded from the snapshot's columns once (a snapshot
 * never changes) and copied into the answer from then on; only its distance and score are written per search.
 */
export function writeFleetItems(page: FoundPage | undefined, radiusKm: number, out: JsonBytes): void {
  out.ascii("[");
  const n = page ? page.length : 0;
  for (let i = 0; i < n; i++) {
    const snapshot = page!.snapshots[page!.from[i]];
    const id = page!.ids[i];
    const distanceKm = page!.dist[i];
    let entries = kept.get(snapshot);
    if (!entries) kept.set(snapshot, (entries = new Map()));
    let fields = entries.get(id);
    if (!fields) {
      if (entries.size >= MAX_KEPT) entries.clear();
      entries.set(id, (fields = encodeFields(snapshot, id)));
    }
    if (i > 0) out.ascii(",");
    out
      .raw(fields.bytes.subarray(0, fields.cut))
      .number(round(distanceKm, 2))
      .ascii(',"score":')
      .number(scoreOf(distanceKm, radiusKm))
      .raw(fields.bytes.subarray(fields.cut));
  }
  out.ascii("]");
}

/** An entry's item up to `"distanceKm":` and from `,"minimum_rate"` on, from the snapshot's columns. */
function encodeFields(snapshot: FleetSnapshot, id: number): { bytes: Uint8Array; cut: number } {
  const p = snapshot.parts;
  const t = p.textId[id];
  const r = p.rateId[id];
  const luggage = p.maxLuggage[id];
  const out = scratch.reset();
  out.ascii('{"netid":').string(p.netids[p.netidId[id]]);
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
  out.ascii(',"distanceKm":');
  const cut = out.length;
  out.ascii(',"minimum_rate":').number(Number(p.rates[3 * r]));
  out.ascii(',"hourly_rate":').number(Number(p.rates[3 * r + 1]));
  out.ascii(',"currency":').string(p.rates[3 * r + 2]);
  out.ascii(',"slug":').string(snapshot.slug(id));
  out.ascii("}");
  return { bytes: out.bytes(), cut };
}
