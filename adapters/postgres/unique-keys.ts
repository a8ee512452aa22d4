/** The errors an error wraps (drizzle wraps the driver's error in `cause`), outermost first, a few levels deep. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) chain.push(e);
  return chain;
}

/** The constraint a PostgreSQL unique violation (SQLSTATE 23505) names, "" when it names none; undefined for any other error. */
export function uniqueViolationOf(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (!(e instanceof Error)) continue;
    const { errno, code, constraint } = e as Error & { errno?: unknown; code?: unknown; constraint?: unknown };
    if (errno !== "23505" && code !== "23505" && !/duplicate key value violates unique constraint/.test(e.message)) continue;
    if (typeof constraint === "string" && constraint !== "") return constraint;
    return /unique constraint "([^"]+)"/.exec(e.message)?.[1] ?? "";
  }
  return undefined;
}
