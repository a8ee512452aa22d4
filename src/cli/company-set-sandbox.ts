import type { Config } from "../config";
import { open } from "./open";
import { UsageError } from "./usage";

/** `company set-sandbox <netid> on|off`: a sandbox company's trips are answered by a simulated dispatcher. */
export async function runSetSandbox(config: Config, args: string[]): Promise<number> {
  const [netid, mode, ...rest] = args;
  if (!netid || (mode !== "on" && mode !== "off") || rest.length) throw new UsageError("usage: company set-sandbox <netid> on|off");
  const { services, close } = await open(config);
  try {
    if (!(await services.sandboxes.setSandbox(netid, mode === "on"))) {
      console.error(`no company with netid ${netid}`);
      return 1;
    }
    services.audit.record({ type: "sandbox.changed", netid, detail: `sandbox ${mode} (CLI)` }, services.clock.now());
    console.log(mode === "on" ? `${netid} is now a sandbox: a simulated dispatcher answers its trips` : `${netid} is no longer a sandbox`);
    return 0;
  } finally {
    await close();
  }
}
