/**
 * True inside the compiled binary (`bun build --compile`), where modules live in Bun's embedded file
 * system (`/$bunfs/…`, `~BUN` on Windows) rather than on disk.
 */
export const COMPILED = import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");

/**
 * Where a Worker's code is, given its path from the project root — the same path `npm run build` lists as an
 * entrypoint. In the binary every module is bundled, so a worker is addressed from the bundle root; from
 * source it is the file itself.
 */
export function workerEntry(fromRoot: string): string {
  return COMPILED ? `./${fromRoot}` : new URL(`../${fromRoot}`, import.meta.url).href;
}
