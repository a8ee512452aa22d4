import { createRequire } from "node:module";

let checker: { test(password: string): boolean } | undefined;

/** True for a password on Mozilla's common-password list (fxa-common-password-list, ~50k entries), compared case-insensitively. */
export function isCommonPassword(password: string): boolean {
  checker ??= createRequire(import.meta.url)("fxa-common-password-list") as { test(password: string): boolean };
  return checker.test(password) || checker.test(password.toLowerCase());
}
