// A static import, so the list is bundled into the compiled binary too.
import commonPasswordList from "fxa-common-password-list";

/** True for a password on Mozilla's common-password list (fxa-common-password-list, ~50k entries), compared case-insensitively. */
export function isCommonPassword(password: string): boolean {
  return commonPasswordList.test(password) || commonPasswordList.test(password.toLowerCase());
}
