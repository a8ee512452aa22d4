import type { Database } from "bun:sqlite";
import { readFleetStamp } from "./fleet-source";

/** Slugs re-read at most per noticed change; more, and the index is rebuilt instead. */
const MAX_SLUGS = 5000;

/**
 * Notices fleet changes committed by other processes (the CLI's `fleet import` while `serve` runs, another
 * instance): every `intervalMs` it compares this connection's data_version (which moves only with other
 * connections' commits, so an idle database costs one pragma) and then the fleet stamp. `onChange` gets the
 * changed slugs when the change log covers them, else undefined (rebuild). Returns a function that stops it.
 */
export function watchFleetChanges(
  sqlite: Database,
  onChange: (slugs: string[] | undefined) => void,
  onError: (error: unknown) => void,
  intervalMs = 250,
): () => void {
  const dataVersion = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  let version = dataVersion.get()?.data_version;
  let seen = readFleetStamp(sqlite);
  const timer = setInterval(() => {
    try {
      const v = dataVersion.get()?.data_version;
      if (v === version) return;
      version = v;
      const now = readFleetStamp(sqlite);
      if (!now || (seen && now.n === seen.n && now.token === seen.token)) return;
      const slugs = seen && now.n > seen.n ? changedSlugs(sqlite, seen.n, now.n) : undefined;
      seen = now;
      onChange(slugs);
    } catch (error) {
      onError(error);
    }
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** The slugs changed after stamp `from` up to `to`, when the change log holds every one of those changes. */
function changedSlugs(sqlite: Database, from: number, to: number): string[] | undefined {
  return sqlite.transaction(() => {
    const base = sqlite.query<{ base: number }, []>("SELECT log_base AS base FROM fleet_generation WHERE id = 1").get()?.base ?? -1;
    if (base < 0 || base > from) return undefined;
    // Every change adds at least one row with its own n: a missing n is a change the log does not hold.
    const logged =
      sqlite.query<{ c: number }, [number, number]>("SELECT count(DISTINCT n) AS c FROM fleet_changes WHERE n > ? AND n <= ?").get(from, to)?.c ?? 0;
    if (logged !== to - from) return undefined;
    const slugs = sqlite
      .query<{ slug: string }, [number, number, number]>("SELECT DISTINCT slug FROM fleet_changes WHERE n > ? AND n <= ? LIMIT ?")
      .all(from, to, MAX_SLUGS + 1)
      .map((r) => r.slug);
    return slugs.length <= MAX_SLUGS ? slugs : undefined;
  })();
}
