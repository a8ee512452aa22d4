/**
 * `keys` sorted in place by UTF-16 code units (the order of `<` and of the default Array sort), and returned.
 * Objects have few keys: an insertion sort is several times faster than the native sort for them, which
 * converts and merges; longer lists still go to the native sort.
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
