import type { PasswordHasher } from "../../domain/ports";

/**
 * argon2id's cost: memory in KiB and passes. OWASP's minimum profile (19 MiB, 2 passes) is the service's, always in
 * production. `test` (1 MiB, 1 pass, still argon2id) exists for the test suite, which registers and signs in several
 * thousand times: PASSWORD_HASH_COST=test outside production only, and the service warns at start when it is set.
 * A hash records its own cost, so hashes made under either verify under the other.
 */
export const PASSWORD_HASH_COSTS = {
  owasp: { memoryCost: 19456, timeCost: 2 },
  test: { memoryCost: 1024, timeCost: 1 },
} as const;
export type PasswordHashCost = keyof typeof PASSWORD_HASH_COSTS;

/** argon2id through Bun.password, at OWASP's minimum profile unless told otherwise. */
export class Argon2idHasher implements PasswordHasher {
  private readonly params;

  constructor(readonly cost: PasswordHashCost = "owasp") {
    this.params = { algorithm: "argon2id" as const, ...PASSWORD_HASH_COSTS[cost] };
  }

  hash(password: string): Promise<string> {
    return Bun.password.hash(password, this.params);
  }

  async verify(password: string, hash: string): Promise<boolean> {
    try {
      return await Bun.password.verify(password, hash, "argon2id");
    } catch {
      return false;
    }
  }

  /**
   * A hash of a random password at this cost: a sign-in for an unknown user is verified against it, so it takes as
   * long as one for a known user. Made once per process and cost.
   */
  decoyHash(): string {
    let decoy = decoys.get(this.cost);
    if (!decoy) decoys.set(this.cost, (decoy = Bun.password.hashSync(crypto.randomUUID(), this.params)));
    return decoy;
  }
}
const decoys = new Map<PasswordHashCost, string>();
