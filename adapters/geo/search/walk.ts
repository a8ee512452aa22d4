import { grown } from "../typed-array";
import type { KdTree } from "./kd-tree";
import { boxGap2, boxSpan2, type PreparedQuery } from "./query";

/**
 * The one kd-tree walk of the searches that take every match of a circle (counts, serving sets, circle matches):
 * it visits the nodes whose 3-D box comes within the radius chord of a centre and leaves the ranges of points to
 * look at in `walked.ranges`, three numbers each: from, to (inclusive) and 1 when the node lies wholly within the
 * radius of a centre (every point matches; only with `covers`), 0 when each point needs its own test. A node
 * beyond the chord of every centre is skipped. Nodes are contiguous ranges of the tree's order; the ranges come
 * in the order the walk meets them. The callers loop over the ranges in their own code, so each keeps its own
 * tight loop and no call site in the walk sees more than one function.
 */
export const walked = { ranges: new Int32Array(3 * 1024) };

// Scratch stack of (node, left, right), reused by every walk (searches are synchronous and never interleave).
let stack = new Int32Array(3 * 256);

/** Walks `tree` for `q` (see `walked`); returns where its ranges end in `walked.ranges`. `covers`: look for covered nodes. */
export function walkTree(tree: KdTree, q: PreparedQuery, covers: boolean): number {
  const { ids, nodeSize } = tree;
  if (ids.length === 0) return 0;
  const { boxes } = tree;
  const one = q.n === 1;
  const cx = q.x[0], cy = q.y[0], cz = q.z[0];
  const inner = covers ? q.chord2 - q.margin : -1;
  const outer = q.chord2 + q.margin;
  let s = stack;
  let r = walked.ranges;
  let n = 0;
  s[0] = 0;
  s[1] = 0;
  s[2] = ids.length - 1;
  let sp = 1;
  // Bounded: each node is pushed at most once, and there are fewer nodes than points.
  while (sp > 0) {
    sp--;
    const node = s[3 * sp];
    const left = s[3 * sp + 1];
    const right = s[3 * sp + 2];
    const reach = one ? reachOne(boxes, node, cx, cy, cz, inner, outer) : reachAny(boxes, node, q, inner, outer);
    if (reach === FAR) continue;
    if (3 * n + 3 > r.length) r = walked.ranges = grown(r);
    if (reach === COVERED) {
      r[3 * n] = left;
      r[3 * n + 1] = right;
      r[3 * n + 2] = 1;
      n++;
      continue;
    }
    let from = left;
    let to = right;
    if (right - left > nodeSize) {
      const m = (left + right) >> 1;
      from = to = m;
      if (3 * sp + 6 > s.length) s = stack = grown(s);
      if (m - 1 >= left) {
        s[3 * sp] = 2 * node + 1;
        s[3 * sp + 1] = left;
        s[3 * sp + 2] = m - 1;
        sp++;
      }
      if (right >= m + 1) {
        s[3 * sp] = 2 * node + 2;
        s[3 * sp + 1] = m + 1;
        s[3 * sp + 2] = right;
        sp++;
      }
    }
    r[3 * n] = from;
    r[3 * n + 1] = to;
    r[3 * n + 2] = 0;
    n++;
  }
  return 3 * n;
}

/** Where a node's box lies against the query's circles. */
const FAR = 0;
const NEAR = 1;
const COVERED = 2;

/** A node's reach for one centre (x, y, z), the common case; `inner` −1 when covered nodes are not looked for. */
function reachOne(boxes: Float32Array, node: number, x: number, y: number, z: number, inner: number, outer: number): number {
  if (boxGap2(boxes, node, x, y, z) > outer) return FAR;
  return inner >= 0 && boxSpan2(boxes, node, x, y, z) <= inner ? COVERED : NEAR;
}

/** A node's reach for several centres: near when near one of them, covered when wholly within one it is near. */
function reachAny(boxes: Float32Array, node: number, q: PreparedQuery, inner: number, outer: number): number {
  let reach = FAR;
  for (let c = 0; c < q.n; c++) {
    const x = q.x[c], y = q.y[c], z = q.z[c];
    if (boxGap2(boxes, node, x, y, z) > outer) continue;
    reach = NEAR;
    if (inner < 0) break;
    if (boxSpan2(boxes, node, x, y, z) <= inner) return COVERED;
  }
  return reach;
}
