/** A copy of `array` with room for `length` elements (twice its length by default): scratch arrays grow by doubling. */
export function grown<T extends Float64Array | Float32Array | Uint32Array | Uint16Array | Int32Array | Uint8Array>(array: T, length = 2 * array.length): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
