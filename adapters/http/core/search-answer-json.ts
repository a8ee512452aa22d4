import { JsonBytes } from "../../../domain/shared/json-bytes";
import { writeFleetSearch, type PlannedFleetSearch, type SearchFleetDeps, type SearchWarning } from "../../../domain/usecases/search-fleet";

/**
 * Writes a search answer as `JSON.stringify({ success: true, data: result })` would, byte for byte, into one
 * reused buffer: the items straight from the index's columns (no item objects, no intermediate string), the rest
 * around them. Each answer is a copy of the buffer, so it can be kept and sent while the next one is written.
 */
export class SearchAnswerJson {
  private readonly out = new JsonBytes();

  constructor(private readonly deps: SearchFleetDeps) {}

  /** The answer's bytes, from the index as it is now (call it in the same synchronous step as keeping them). */
  encode(plan: PlannedFleetSearch): Uint8Array {
    const out = this.out.reset().ascii('{"success":true,"data":{"items":');
    const { total, limit, offset, warnings } = writeFleetSearch(this.deps, plan, out);
    out.ascii(',"total":').number(total).ascii(',"limit":').number(limit).ascii(',"offset":').number(offset).ascii(',"warnings":');
    writeWarnings(out, warnings);
    return out.ascii("}}").bytes();
  }
}

/** The warnings array, each warning's members in their own order (all of them strings). */
function writeWarnings(out: JsonBytes, warnings: SearchWarning[]): void {
  out.ascii("[");
  warnings.forEach((warning, i) => {
    out.ascii(i === 0 ? "{" : ",{");
    let first = true;
    for (const [key, value] of Object.entries(warning)) {
      if (value === undefined) continue;
      if (!first) out.ascii(",");
      out.string(key).ascii(":").string(value);
      first = false;
    }
    out.ascii("}");
  });
  out.ascii("]");
}
