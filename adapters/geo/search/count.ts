import { distance } from "geokdbush";
import type { KdTree } from "./kd-tree";
import { chord2To, inside, type PreparedQuery, type TextMatch } from "./query";
import { walked, walkTree } from "./walk";

/**
 * Counts matches in one tree without materialising them: a node whose 3-D box lies entirely inside one
 * centre's sphere of the radius chord adds its size (or, with a text filter, its passing points) without
 * any distance computation; a node entirely outside every one is skipped (see walkTree).
 */
export function countTree(tree: KdTree, q: PreparedQuery, text: ((id: number) => boolean) | undefined): number {
  if (q.n === 1 && !text) return countPlainOneCentre(tree, q);
  const { ids } = tree;
  const end = walkTree(tree, q, true);
  const r = walked.ranges;
  let total = 0;
  for (let k = 0; k < end; k += 3) {
    const from = r[k], to = r[k + 1];
    if (r[k + 2] === 1) {
      if (!text) total += to - from + 1;
      else for (let i = from; i <= to; i++) if (text(ids[i])) total++;
    } else for (let i = from; i <= to; i++) if ((!text || text(ids[i])) && inside(tree, i, q)) total++;
  }
  return total;
}

/**
 * countTree for one centre with `match` (the q filter): each point of a covered node or a near range is checked
 * against the words first, its text id read in tree order (`texts`), then a byte of each word's memo.
 */
export function countTreeOneCentre(tree: KdTree, q: PreparedQuery, match: TextMatch, texts: Uint32Array): number {
  const { xyz, coords } = tree;
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  const cx = q.x[0], cy = q.y[0], cz = q.z[0];
  const clat = q.lat[0], clon = q.lon[0], radiusKm = q.radiusKm;
  const end = walkTree(tree, q, true);
  const r = walked.ranges;
  let total = 0;
  for (let k = 0; k < end; k += 3) {
    const from = r[k], to = r[k + 1];
    if (r[k + 2] === 1) {
      for (let i = from; i <= to; i++) if (match.has(texts[i])) total++;
      continue;
    }
    for (let i = from; i <= to; i++) {
      if (!match.has(texts[i])) continue;
      const d2 = chord2To(xyz, i, cx, cy, cz);
      if (d2 <= inner || (d2 <= outer && distance(clon, clat, coords[2 * i], coords[2 * i + 1]) <= radiusKm)) total++;
    }
  }
  return total;
}

/**
 * countTree for one centre without a text filter (the most common search): nothing but the chord tests in its
 * loop, which the JIT compiles tighter.
 */
function countPlainOneCentre(tree: KdTree, q: PreparedQuery): number {
  const { xyz, coords } = tree;
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  const cx = q.x[0], cy = q.y[0], cz = q.z[0];
  const end = walkTree(tree, q, true);
  const r = walked.ranges;
  let total = 0;
  for (let k = 0; k < end; k += 3) {
    const from = r[k], to = r[k + 1];
    if (r[k + 2] === 1) {
      total += to - from + 1;
      continue;
    }
    for (let i = from; i <= to; i++) {
      const d2 = chord2To(xyz, i, cx, cy, cz);
      if (d2 <= inner || (d2 <= outer && distance(q.lon[0], q.lat[0], coords[2 * i], coords[2 * i + 1]) <= q.radiusKm)) total++;
    }
  }
  return total;
}
