import type { Config } from "../config";
import { parsePlan } from "../../domain/company/plan";
import { open } from "./open";
import { UsageError } from "./usage";

/** `company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>` (`args` from `set-plan` on). */
export async function runSetPlan(config: Config, args: string[]): Promise<number> {
  const [sub, netid, planName, ...rest] = args;
  if (sub !== "set-plan" || !netid || !planName || rest.length) throw new UsageError("usage: company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>");
  const plan = parsePlan(planName);
  if (!plan) throw new UsageError(`unknown plan ${planName}: use FREE, PROFESSIONAL or ENTERPRISE`);
  const { services, close } = await open(config);
  const ok = await services.companies.setPlan(netid, plan);
  if (ok) services.audit.record({ type: "plan.changed", netid, detail: `plan ${plan} (CLI)` }, services.clock.now());
  await close();
  if (!ok) {
    console.error(`no company with netid ${netid}`);
    return 1;
  }
  console.log(`${netid} is now on ${plan}`);
  return 0;
}
