import KDBush from "kdbush";
import { searchTextOf } from "../../domain/fleet/text";

/** kd-tree leaf size; small leaves make the count traversal skip more points. */
export const NODE_SIZE = 32;

/** What the builder needs, aligned by index id (0…n−1): positions, and the text and type of each entry. */
export interface IndexInput {
  lons: Float64Array;
  lats: Float64Array;
  names: string[];
  descriptions: string[];
  types: string[];
  /** kd-tree leaf size; NODE_SIZE unless given (tests use tiny leaves to exercise every branch). */
  nodeSize?: number;
}

/**
 * The built index: kdbush's single ArrayBuffer (transferable, restored with KDBush.from) and the
 * per-id payload the filters read — normalised search text and a small type id.
 */
export interface IndexParts {
  kd: ArrayBuffer;
  searchText: string[];
  typeIds: Uint16Array;
  typeNames: string[];
}

/** Builds the kd-tree and the filter payload. Pure and synchronous: runs in the build worker or in-process. */
export function buildIndexParts(input: IndexInput): IndexParts {
  const n = input.lons.length;
  const kd = new KDBush(n, input.nodeSize ?? NODE_SIZE, Float64Array);
  for (let i = 0; i < n; i++) kd.add(input.lons[i], input.lats[i]);
  kd.finish();

  const typeNames: string[] = [];
  const typeIdOf = new Map<string, number>();
  const typeIds = new Uint16Array(n);
  const searchText = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const type = input.types[i];
    let id = typeIdOf.get(type);
    if (id === undefined) {
      id = typeNames.length;
      typeNames.push(type);
      typeIdOf.set(type, id);
    }
    typeIds[i] = id;
    searchText[i] = searchTextOf({ name: input.names[i], description: input.descriptions[i], type });
  }
  return { kd: kd.data as ArrayBuffer, searchText, typeIds, typeNames };
}
