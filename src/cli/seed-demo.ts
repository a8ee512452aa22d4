import type { Config } from "../config";
import { DEMO_LOGIN, seedDemo } from "../demo/seed";
import { open } from "./open";
import { UsageError } from "./usage";

/** `seed-demo`: load the demo companies and fleet (into an empty database only, never in production). */
export async function runSeedDemo(config: Config, args: string[]): Promise<number> {
  if (args.length) throw new UsageError("seed-demo takes no arguments");
  if (config.production) {
    console.error("seed-demo: refused with NODE_ENV=production (the demo accounts' password is public)");
    return 1;
  }
  const { services, close } = await open(config);
  if (!(await seedDemo(services))) {
    console.error("seed-demo: the database already has companies; demo data is loaded only into an empty database");
    await close();
    return 1;
  }
  console.log(`demo data loaded; log in with uid ${DEMO_LOGIN.uid} and password ${DEMO_LOGIN.pw}`);
  await close();
  return 0;
}
