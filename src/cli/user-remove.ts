import type { Config } from "../config";
import { open } from "./open";
import { UsageError } from "./usage";

/** `user remove <uid>`: delete a user's profile; its tokens stop working. */
export async function runUserRemove(config: Config, args: string[]): Promise<number> {
  const [sub, uid, ...rest] = args;
  if (sub !== "remove" || !uid || rest.length) throw new UsageError("usage: user remove <uid>");
  const { services, close } = await open(config);
  const ok = await services.users.remove(uid);
  await close();
  if (!ok) {
    console.error(`no user with uid ${uid}`);
    return 1;
  }
  console.log(`user ${uid} removed; its tokens no longer work`);
  return 0;
}
