/**
 * kdbush's kd sort (the same Floyd–Rivest selection, so the same layout, point for point), on one
 * concrete pair of array types: kdbush's own `sort` is shared by every index it builds (Uint16Array ids for
 * small trees, Uint32Array for big ones), so its hot swap runs polymorphic and several times slower.
 * Sorts `ids` and the interleaved [x, y, x, y, …] `coords` so that every range [left, right] longer than
 * `nodeSize` has its median (on x, then y, alternating) at m = (left + right) >> 1.
 */
export function kdSort(ids: Uint32Array, coords: Float64Array, nodeSize: number, left: number, right: number, axis: number): void {
  if (right - left <= nodeSize) return;
  const m = (left + right) >> 1;
  select(ids, coords, m, left, right, axis);
  kdSort(ids, coords, nodeSize, left, m - 1, 1 - axis);
  kdSort(ids, coords, nodeSize, m + 1, right, 1 - axis);
}

function select(ids: Uint32Array, coords: Float64Array, k: number, left: number, right: number, axis: number): void {
  while (right > left) {
    if (right - left > 600) {
      const n = right - left + 1;
      const m = k - left + 1;
      const z = Math.log(n);
      const s = 0.5 * Math.exp((2 * z) / 3);
      const sd = 0.5 * Math.sqrt((z * s * (n - s)) / n) * (m - n / 2 < 0 ? -1 : 1);
      const newLeft = Math.max(left, Math.floor(k - (m * s) / n + sd));
      const newRight = Math.min(right, Math.floor(k + ((n - m) * s) / n + sd));
      select(ids, coords, k, newLeft, newRight, axis);
    }
    const t = coords[2 * k + axis];
    let i = left;
    let j = right;
    swap(ids, coords, left, k);
    if (coords[2 * right + axis] > t) swap(ids, coords, left, right);
    while (i < j) {
      swap(ids, coords, i, j);
      i++;
      j--;
      while (coords[2 * i + axis] < t) i++;
      while (coords[2 * j + axis] > t) j--;
    }
    if (coords[2 * left + axis] === t) swap(ids, coords, left, j);
    else {
      j++;
      swap(ids, coords, j, right);
    }
    if (j <= k) left = j + 1;
    if (k <= j) right = j - 1;
  }
}

function swap(ids: Uint32Array, coords: Float64Array, i: number, j: number): void {
  const id = ids[i];
  ids[i] = ids[j];
  ids[j] = id;
  const x = coords[2 * i];
  coords[2 * i] = coords[2 * j];
  coords[2 * j] = x;
  const y = coords[2 * i + 1];
  coords[2 * i + 1] = coords[2 * j + 1];
  coords[2 * j + 1] = y;
}
