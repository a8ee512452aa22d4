import KDBush from "kdbush";
import type { TreeParts } from "../parts";

/**
 * One tree of a snapshot as searches read it: the KDBush over its buffer (its coords are each point's
 * [lon, lat] in tree order, what exact distances are computed from), with the global ids, unit-sphere
 * points and node boxes beside it (see TreeParts).
 */
export class KdTree {
  readonly index: KDBush;
  readonly coords: Float64Array;
  readonly ids: Uint32Array;
  readonly xyz: Float32Array;
  readonly boxes: Float32Array;
  readonly nodeSize: number;

  constructor(readonly parts: TreeParts) {
    this.index = KDBush.from(parts.data);
    if (!(this.index.coords instanceof Float64Array) || this.index.numItems !== parts.ids.length)
      throw new Error("fleet index: a tree's kdbush data does not fit it");
    this.coords = this.index.coords;
    this.ids = parts.ids;
    this.xyz = parts.xyz;
    this.boxes = parts.boxes;
    this.nodeSize = parts.nodeSize;
  }
}
