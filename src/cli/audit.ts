import type { Config } from "../config";
import { open } from "./open";
import { UsageError } from "./usage";

/** `audit [--type T] [--netid N] [--since UNIX] [--limit N]`: print security events (newest first) as JSON lines. */
export async function runAudit(config: Config, args: string[]): Promise<number> {
  const filter: { type?: string; netid?: string; since?: number; limit: number } = { limit: 100 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) throw new UsageError(`audit: ${flag} needs a value`);
    if (flag === "--type") filter.type = value;
    else if (flag === "--netid") filter.netid = value;
    else if (flag === "--since" && /^\d+$/.test(value)) filter.since = Number(value);
    else if (flag === "--limit" && /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 10000) filter.limit = Number(value);
    else throw new UsageError(`audit: bad option ${flag} ${value}`);
  }
  const { services, close } = await open(config);
  for (const event of await services.storage.audit.query(filter)) console.log(JSON.stringify(event));
  await close();
  return 0;
}
