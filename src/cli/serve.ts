import type { Config } from "../config";
import { UsageError } from "./usage";

/** `serve [--demo]`: migrate, build indexes, then serve HTTP (the default command). */
export async function runServe(config: Config, args: string[]): Promise<number> {
  if (args.some((a) => a !== "--demo")) throw new UsageError(`serve: unknown argument ${args.find((a) => a !== "--demo")}`);
  // The HTTP stack is loaded by the one command that serves (other commands start ~0.25 s sooner without it).
  return (await import("../serve")).serve(config, args.includes("--demo"));
}
