import { distance } from "geokdbush";
import type { KdTree } from "./kd-tree";
import { inside, type PreparedQuery, type TextMatch } from "./query";

// Scratch space reused by every count (searches are synchronous and never interleave).
let stack = new Int32Array(3 * 256);

/**
 * Counts matches in one tree without materialising them: a node whose 3-D box lies entirely inside one
 * centre's sphere of the radius chord adds its size (or, with a text filter, its passing points) without
 * any distance computation; a node entirely outside every one is skipped. Nodes are contiguous ranges.
 */
export function countTree(tree: KdTree, q: PreparedQuery, text: ((id: number) => boolean) | undefined): number {
  const { ids, boxes, nodeSize } = tree;
  if (ids.length === 0) return 0;
  if (q.n === 1 && !text) return countPlainOneCentre(tree, q);
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  let total = 0;
  let sp = 0;
  stack[0] = 0;
  stack[1] = 0;
  stack[2] = ids.length - 1;
  sp = 1;
  // Bounded: each node is pushed at most once, and there are fewer nodes than points.
  while (sp > 0) {
    sp--;
    const node = stack[3 * sp];
    const left = stack[3 * sp + 1];
    const right = stack[3 * sp + 2];
    const o = 6 * node;
    const minX = boxes[o], minY = boxes[o + 1], minZ = boxes[o + 2], maxX = boxes[o + 3], maxY = boxes[o + 4], maxZ = boxes[o + 5];
    let near = false;
    let covered = false;
    for (let c = 0; c < q.n; c++) {
      const cx = q.x[c], cy = q.y[c], cz = q.z[c];
      const nx = cx < minX ? minX - cx : cx > maxX ? cx - maxX : 0;
      const ny = cy < minY ? minY - cy : cy > maxY ? cy - maxY : 0;
      const nz = cz < minZ ? minZ - cz : cz > maxZ ? cz - maxZ : 0;
      if (nx * nx + ny * ny + nz * nz > outer) continue;
      near = true;
      const fx = Math.max(cx - minX, maxX - cx);
      const fy = Math.max(cy - minY, maxY - cy);
      const fz = Math.max(cz - minZ, maxZ - cz);
      if (fx * fx + fy * fy + fz * fz <= inner) {
        covered = true;
        break;
      }
    }
    if (!near) continue;
    if (covered) {
      if (!text) total += right - left + 1;
      else for (let i = left; i <= right; i++) if (text(ids[i])) total++;
      continue;
    }
    if (right - left <= nodeSize) {
      for (let i = left; i <= right; i++) if ((!text || text(ids[i])) && inside(tree, i, q)) total++;
      continue;
    }
    const m = (left + right) >> 1;
    if ((!text || text(ids[m])) && inside(tree, m, q)) total++;
    if (3 * sp + 6 > stack.length) stack = grow(stack);
    if (m - 1 >= left) {
      stack[3 * sp] = 2 * node + 1;
      stack[3 * sp + 1] = left;
      stack[3 * sp + 2] = m - 1;
      sp++;
    }
    if (right >= m + 1) {
      stack[3 * sp] = 2 * node + 2;
      stack[3 * sp + 1] = m + 1;
      stack[3 * sp + 2] = right;
      sp++;
    }
  }
  return total;
}

/**
 * countTree for the common case (one centre), with the centre and thresholds in locals: the same decisions,
 * about twice as fast. With `match` (the q filter) each point of a covered node or a leaf is checked against
 * the words first: its text id read in tree order (`texts`), then a byte of each word's memo.
 */
export function countTreeOneCentre(tree: KdTree, q: PreparedQuery, match?: TextMatch, texts?: Uint32Array): number {
  const { ids, boxes, nodeSize, xyz, coords } = tree;
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  const cx = q.x[0], cy = q.y[0], cz = q.z[0];
  const clat = q.lat[0], clon = q.lon[0], radiusKm = q.radiusKm;
  let s = stack;
  let total = 0;
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
    const o = 6 * node;
    const minX = boxes[o], minY = boxes[o + 1], minZ = boxes[o + 2], maxX = boxes[o + 3], maxY = boxes[o + 4], maxZ = boxes[o + 5];
    const nx = cx < minX ? minX - cx : cx > maxX ? cx - maxX : 0;
    const ny = cy < minY ? minY - cy : cy > maxY ? cy - maxY : 0;
    const nz = cz < minZ ? minZ - cz : cz > maxZ ? cz - maxZ : 0;
    if (nx * nx + ny * ny + nz * nz > outer) continue;
    const fx = cx - minX > maxX - cx ? cx - minX : maxX - cx;
    const fy = cy - minY > maxY - cy ? cy - minY : maxY - cy;
    const fz = cz - minZ > maxZ - cz ? cz - minZ : maxZ - cz;
    if (fx * fx + fy * fy + fz * fz <= inner) {
      if (!match) total += right - left + 1;
      else for (let i = left; i <= right; i++) if (match.has(texts![i])) total++;
      continue;
    }
    let from = left;
    let to = right;
    if (right - left > nodeSize) {
      const m = (left + right) >> 1;
      from = to = m;
      if (3 * sp + 6 > s.length) s = stack = grow(s);
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
    for (let i = from; i <= to; i++) {
      if (match && !match.has(texts![i])) continue;
      const dx = xyz[3 * i] - cx;
      const dy = xyz[3 * i + 1] - cy;
      const dz = xyz[3 * i + 2] - cz;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= inner) total++;
      else if (d2 <= outer && distance(clon, clat, coords[2 * i], coords[2 * i + 1]) <= radiusKm) total++;
    }
  }
  return total;
}

/**
 * countTreeOneCentre without a text filter (the most common search): the same decisions with nothing but
 * the box and chord tests in its loops, which the JIT compiles tighter.
 */
function countPlainOneCentre(tree: KdTree, q: PreparedQuery): number {
  const { ids, boxes, nodeSize, xyz } = tree;
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  const cx = q.x[0], cy = q.y[0], cz = q.z[0];
  let s = stack;
  let total = 0;
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
    const o = 6 * node;
    const minX = boxes[o], minY = boxes[o + 1], minZ = boxes[o + 2], maxX = boxes[o + 3], maxY = boxes[o + 4], maxZ = boxes[o + 5];
    const nx = cx < minX ? minX - cx : cx > maxX ? cx - maxX : 0;
    const ny = cy < minY ? minY - cy : cy > maxY ? cy - maxY : 0;
    const nz = cz < minZ ? minZ - cz : cz > maxZ ? cz - maxZ : 0;
    if (nx * nx + ny * ny + nz * nz > outer) continue;
    const fx = cx - minX > maxX - cx ? cx - minX : maxX - cx;
    const fy = cy - minY > maxY - cy ? cy - minY : maxY - cy;
    const fz = cz - minZ > maxZ - cz ? cz - minZ : maxZ - cz;
    if (fx * fx + fy * fy + fz * fz <= inner) {
      total += right - left + 1;
      continue;
    }
    let from = left;
    let to = right;
    if (right - left > nodeSize) {
      const m = (left + right) >> 1;
      from = to = m;
      if (3 * sp + 6 > s.length) s = stack = grow(s);
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
    for (let i = from; i <= to; i++) {
      const dx = xyz[3 * i] - cx;
      const dy = xyz[3 * i + 1] - cy;
      const dz = xyz[3 * i + 2] - cz;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 <= inner) total++;
      else if (d2 <= outer && inBand(tree, i, q)) total++;
    }
  }
  return total;
}

/** The exact test for a point in the float error band around one centre's circle. */
function inBand(tree: KdTree, i: number, q: PreparedQuery): boolean {
  return distance(q.lon[0], q.lat[0], tree.coords[2 * i], tree.coords[2 * i + 1]) <= q.radiusKm;
}

function grow<T extends Float64Array | Int32Array>(a: T): T {
  const next = new (a.constructor as { new (n: number): T })(a.length * 2);
  next.set(a);
  return next;
}
