import type { PasswordHasher } from "../../domain/ports";

/** argon2id through Bun.password (memory 19 MiB, 2 passes: OWASP's minimum profile). */
export class Argon2idHasher implements PasswordHasher {
  hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 });
  }
  async verify(password: string, hash: string): Promise<boolean> {
    try {
      return await Bun.password.verify(password, hash, "argon2id");
    } catch {
      return false;
    }
  }
}
