/**
 * True inside the compiled binary (`bun build --compile`), where modules live in Bun's embedded file
 * system (`/$bunfs/…`, `~BUN` on Windows) rather than on disk.
 */
export const COMPILED = import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");

/**
 * Where a Worker's code is, given its entry point's file name in src/workers/ (every entry point `npm run
 * build` lists is under src/). In the binary every module is bundled and addressed from the bundle root,
 * the folder holding all the entry points (src/); from source it is the file itself.
 */
export function workerEntry(name: string): string {
  return COMPILED ? `./workers/${name}` : new URL(`../src/workers/${name}`, import.meta.url).href;
}
